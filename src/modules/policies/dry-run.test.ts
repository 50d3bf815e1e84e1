import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

describe.each(DATABASES)("trying a policy's rule (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind);
    for (const team of ["sales", "marketing"]) await t.api("PUT", `/api/teams/${team}`, { name: team });
    const contract = (id: string, extra: Record<string, unknown>) => ({ apiVersion: "v3.1.0", kind: "DataContract", id, version: "1.0.0", status: "active", team: { name: "sales" }, ...extra });
    expect((await t.api("PUT", "/api/datacontracts/with-sla", contract("with-sla", { slaProperties: [{ property: "latency", value: 1 }] }))).status).toBe(200);
    expect((await t.api("PUT", "/api/datacontracts/without-sla", contract("without-sla", {}))).status).toBe(200);
    await t.api("PUT", "/api/dataproducts/orders", { dataProductSpecification: "0.0.1", info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pii", containsPii: true }, { id: "plain" }] });
    for (const port of ["pii", "plain"]) {
      const res = await t.api("PUT", `/api/access/${port}-access`, { info: { purpose: "x" }, provider: { dataProductId: "orders", outputPortId: port }, consumer: { teamId: "marketing" } });
      expect(res.status, res.text).toBe(200);
    }
  });
  afterAll(() => t?.close());

  const feedLength = async () => ((await t.api("GET", "/api/events")).body as any[]).length;

  it("lists what a stored rule would deny over current contracts, changing nothing", async () => {
    const rule = { condition: "!has(contract.slaProperties)", effect: "deny", gates: ["contract.publish"] };
    // A Draft policy can be tried before it is enforced.
    expect((await t.api("PUT", "/api/policies/sla", { name: "SLA", status: "Draft", rule })).status).toBe(200);
    const before = await feedLength();
    const run = await t.api("POST", "/api/policies/sla/evaluate");
    expect(run.status, run.text).toBe(200);
    expect(run.body).toEqual({
      policyId: "sla",
      rule,
      evaluated: { datacontracts: 2, dataproducts: 0, accesses: 0 },
      counts: { deny: 1, warn: 0, hold: 0 },
      findings: [{ gate: "contract.publish", kind: "datacontract", id: "without-sla", outcome: "deny", read: { "contract.slaProperties": null } }],
      truncated: false,
    });
    expect(await feedLength()).toBe(before);
  });

  it("tries a draft rule from the body over open accesses, and refuses one that does not compile", async () => {
    const draft = { condition: "port.containsPii", effect: "require-approvals", gates: ["access.request"], approvals: { count: 2 } };
    const run = await t.api("POST", "/api/policies/sla/evaluate", { rule: draft });
    expect(run.body.evaluated.accesses).toBe(2);
    expect(run.body.findings).toEqual([{ gate: "access.request", kind: "access", id: "pii-access", outcome: "hold", read: { "port.containsPii": true } }]);
    // A policy that does not exist yet can be tried with a draft.
    expect((await t.api("POST", "/api/policies/new-one/evaluate", { rule: draft })).status).toBe(200);
    expect((await t.api("POST", "/api/policies/new-one/evaluate")).status).toBe(404);
    const broken = await t.api("POST", "/api/policies/sla/evaluate", { rule: { ...draft, condition: "port.containsPii &&" } });
    expect(broken.status).toBe(422);
    expect(broken.body.violations[0].field).toBe("rule.condition");
  });

  it("judges a draft document sent to /api/policies/evaluate without storing it, and answers a clear 422 to a body out of its shape", async () => {
    const before = await feedLength();
    const draft = { apiVersion: "v3.1.0", kind: "DataContract", id: "draft-only", version: "1.0.0", status: "active", team: { name: "sales" } };
    const judged = await t.api("POST", "/api/policies/evaluate", { gate: "contract.publish", document: draft });
    expect(judged.status, judged.text).toBe(200);
    for (const body of [
      { gate: "access.request", document: draft },
      { gate: "contract.publish", document: "not a document" },
      { gate: "contract.publish", document: draft, id: "x".repeat(300) },
      { gate: "contract.publish", document: draft, extra: true },
      { gate: "contract.publish" },
    ]) {
      const res = await t.api("POST", "/api/policies/evaluate", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
    }
    expect((await t.api("GET", "/api/datacontracts/draft-only")).status).toBe(404);
    expect(await feedLength()).toBe(before);
  });
});
