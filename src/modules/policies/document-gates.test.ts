import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { createTeamKey, suiteServer } from "../../../test/helpers/suite-server.js";

/** The contract.publish and product.publish gates, and certifications on data products. */
describe.each(DATABASES)("policies at document gates (%s)", (kind) => {
  let teamKey = "";
  const t = suiteServer(kind, { teams: { sales: "Sales" }, setup: async (t) => { teamKey = await createTeamKey(t, "sales", "sales"); } });

  const contract = (status: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: "v3.1.0",
    kind: "DataContract",
    id: "orders",
    version: "1.0.0",
    status,
    team: { name: "sales" },
    ...extra,
  });
  const eventsOf = async (subject: string) => ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.subject === subject);

  it("refuses to publish a contract without a latency SLA, naming the policy, its rule and what it read; drafts pass", async () => {
    const rule = { condition: "!has(contract.slaProperties) || !contract.slaProperties.exists(s, s.property == 'latency')", effect: "deny", gates: ["contract.publish"], message: "An active contract needs a latency SLA." };
    expect((await t.api("PUT", "/api/policies/sla", { name: "Latency SLA", status: "Accepted", rule })).status).toBe(200);
    // A Draft policy is not enforced.
    expect((await t.api("PUT", "/api/policies/draft", { name: "Never", status: "Draft", rule: { condition: "true", effect: "deny", gates: ["contract.publish"] } })).status).toBe(200);

    const draft = await t.api("PUT", "/api/datacontracts/orders", contract("draft"));
    expect(draft.status, draft.text).toBe(200);
    const refused = await t.api("PUT", "/api/datacontracts/orders", contract("active"));
    expect(refused.status).toBe(422);
    expect(refused.headers.get("content-type")).toMatch(/problem\+json/);
    expect(refused.body.detail).toContain("'Latency SLA' (sla): An active contract needs a latency SLA.");
    expect(refused.body.policies).toEqual([
      { policyId: "sla", name: "Latency SLA", effect: "deny", gate: "contract.publish", rule: rule.condition, message: rule.message, read: { "contract.slaProperties": null } },
    ]);
    expect((await t.api("GET", "/api/datacontracts/orders")).body.status).toBe("draft");

    const published = await t.api("PUT", "/api/datacontracts/orders", contract("active", { slaProperties: [{ property: "latency", value: 4, unit: "h" }] }));
    expect(published.status, published.text).toBe(200);
  });

  it("lets a warned publish pass and carries the warning in the event's data", async () => {
    const rule = { condition: "!has(contract.description)", effect: "warn", gates: ["contract.publish"], message: "Describe it." };
    expect((await t.api("PUT", "/api/policies/describe", { name: "Described", status: "Accepted", rule })).status).toBe(200);
    const put = await t.api("PUT", "/api/datacontracts/orders", contract("active", { slaProperties: [{ property: "latency", value: 2, unit: "h" }] }));
    expect(put.status, put.text).toBe(200);
    const updated = (await eventsOf("orders")).filter((e) => e.type.endsWith("DataContractUpdatedEvent")).pop();
    expect(updated.data.verdicts).toEqual([{ policyId: "describe", name: "Described", effect: "warn", gate: "contract.publish", rule: rule.condition, message: "Describe it.", read: { "contract.description": null } }]);
    expect(updated.data.breaking).toBe(false);
  });

  it("refuses a rule at two gates that reads what only one gives, and judges products at product.publish", async () => {
    const both = await t.api("PUT", "/api/policies/describe", { name: "Described", status: "Accepted", rule: { condition: "!has(product.description)", effect: "warn", gates: ["contract.publish", "product.publish"] } });
    expect(both.status).toBe(422);
    expect((await t.api("PUT", "/api/policies/describe", { name: "Described", status: "Deprecated" })).status).toBe(200);
    const owner = { condition: "!has(product.info.owner) || product.info.owner != 'sales'", effect: "deny", gates: ["product.publish"] };
    expect((await t.api("PUT", "/api/policies/owner", { name: "Sales owns", status: "Accepted", rule: owner })).status).toBe(200);
    expect((await t.api("PUT", "/api/teams/other", { name: "Other" })).status).toBe(200);
    const refused = await t.api("PUT", "/api/dataproducts/p1", { dataProductSpecification: "0.0.1", info: { title: "P1", owner: "other", status: "active" } });
    expect(refused.status).toBe(422);
    expect(refused.body.policies[0]).toMatchObject({ policyId: "owner", read: { "product.info.owner": "other" } });
    expect((await t.api("PUT", "/api/dataproducts/p1", { dataProductSpecification: "0.0.1", info: { title: "P1", owner: "sales", status: "active" } })).status).toBe(200);
  });

  it("lets only organization-scoped principals assign or remove a restricted certification", async () => {
    expect((await t.api("PUT", "/api/certifications/gold", { name: "Gold", tag: "certified-gold", restricted: true })).status).toBe(200);
    expect((await t.api("PUT", "/api/certifications/bronze", { name: "Bronze", tag: "certified-bronze" })).status).toBe(200);
    const product = (tags: string[]) => ({ dataProductSpecification: "0.0.1", info: { title: "P2", owner: "sales" }, tags });
    expect((await t.api("PUT", "/api/dataproducts/p2", product(["certified-bronze"]), { key: teamKey })).status).toBe(200);
    const taken = await t.api("PUT", "/api/dataproducts/p2", product(["certified-bronze", "certified-gold"]), { key: teamKey });
    expect(taken.status).toBe(403);
    expect(taken.body.detail).toContain("'Gold' is restricted");
    expect((await t.api("PUT", "/api/dataproducts/p2", product(["certified-gold"]))).status).toBe(200);
    // Nor may the team drop it again; other tags stay its own.
    expect((await t.api("PUT", "/api/dataproducts/p2", product([]), { key: teamKey })).status).toBe(403);
    expect((await t.api("PUT", "/api/dataproducts/p2", product(["certified-gold", "x"]), { key: teamKey })).status).toBe(200);
  });
});
