import { describe, expect, it } from "vitest";
import { ManualClock } from "../../platform/clock.js";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { ACTIVATION_RETRY_MS } from "../access/decisions.js";

/** The access.activate gate when the scheduler opens an access's window (docs/policies.md). */
describe.each(DATABASES)("access.activate at the scheduler (%s)", (kind) => {
  const clock = new ManualClock("2026-04-01T00:00:00.000Z");
  const contract = (status: string) => ({ apiVersion: "v3.1.0", kind: "DataContract", id: "orders-v1", version: "1.0.0", status, team: { name: "sales" } });

  const t = suiteServer(kind, {
    // The scheduler runs only when the test ticks it.
    overrides: { schedulerIntervalMs: 3_600_000 },
    clock,
    teams: { sales: "sales", marketing: "marketing" },
    setup: async (t) => {
      expect((await t.api("PUT", "/api/datacontracts/orders-v1", contract("draft"))).status).toBe(200);
      const product = { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", dataContractId: "orders-v1" }] };
      expect((await t.api("PUT", "/api/dataproducts/orders", product)).status).toBe(200);
      const rule = { condition: "has(contract.status) && contract.status != 'active'", effect: "deny", gates: ["access.activate"], message: "Activate only under an active contract." };
      expect((await t.api("PUT", "/api/policies/active-contract", { name: "Active contract", status: "Accepted", rule })).status).toBe(200);
    },
  });

  const access = (id: string, info: Record<string, unknown>) =>
    t.api("PUT", `/api/access/${id}`, { info: { purpose: "Attribution", ...info }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "marketing" } });
  const history = async (id: string) => ((await t.api("GET", `/api/access/${id}/history`)).body as any[]).map((h) => [h.kind, h.principal, h.data]);

  it("given an approved access starting later and a policy denying its activation, when its start date comes, then it stays inactive with the refusal recorded once", async () => {
    expect((await access("later", { startDate: "2026-04-03T00:00:00Z" })).status).toBe(200);
    const approved = await t.api("POST", "/api/access/later/approve");
    expect(approved.body.info).toMatchObject({ status: "approved", active: false });

    clock.set("2026-04-03T00:00:01.000Z");
    await t.server.scheduler.tick();
    expect((await t.api("GET", "/api/access/later")).body.info).toMatchObject({ status: "approved", active: false });
    const refused = (await history("later")).filter(([kind]) => kind === "AccessActivationRefusedEvent");
    expect(refused).toHaveLength(1);
    expect(refused[0]![1]).toBe("system");
    expect(refused[0]![2].verdicts).toEqual([
      expect.objectContaining({ policyId: "active-contract", effect: "deny", gate: "access.activate", message: "Activate only under an active contract.", read: { "contract.status": "draft" } }),
    ]);
    expect((await history("later")).map(([kind]) => kind)).not.toContain("AccessActivatedEvent");

    // Later passes, before and after the retry time, record nothing new while the policy still denies.
    clock.advance(1000);
    await t.server.scheduler.tick();
    clock.advance(ACTIVATION_RETRY_MS);
    await t.server.scheduler.tick();
    expect((await history("later")).filter(([kind]) => kind === "AccessActivationRefusedEvent")).toHaveLength(1);
  });

  it("when what the policy reads changes, then a later try activates the access", async () => {
    expect((await t.api("PUT", "/api/datacontracts/orders-v1", contract("active"))).status).toBe(200);
    // Before its retry time the refused access waits.
    await t.server.scheduler.tick();
    expect((await t.api("GET", "/api/access/later")).body.info.active).toBe(false);
    clock.advance(ACTIVATION_RETRY_MS);
    expect(await t.server.scheduler.tick()).toBe(1);
    expect((await t.api("GET", "/api/access/later")).body.info.active).toBe(true);
    const kinds = (await history("later")).map(([kind, principal]) => [kind, principal]);
    expect(kinds.slice(-2)).toEqual([
      ["AccessActivationRefusedEvent", "system"],
      ["AccessActivatedEvent", "system"],
    ]);
    expect((await t.api("PUT", "/api/datacontracts/orders-v1", contract("draft"))).status).toBe(200);
  });

  it("given a warning at access.activate, the scheduler's activation carries it; a date change that opens the window is refused (409) while the policy denies", async () => {
    const warn = { condition: "requester.scope == 'system'", effect: "warn", gates: ["access.activate"] };
    expect((await t.api("PUT", "/api/policies/by-scheduler", { name: "By the scheduler", status: "Accepted", rule: warn })).status).toBe(200);
    expect((await t.api("PUT", "/api/policies/active-contract", { name: "Active contract", status: "Deprecated" })).status).toBe(200);
    const start = new Date(clock.now().getTime() + 60_000).toISOString();
    expect((await access("warned", { startDate: start })).status).toBe(200);
    expect((await t.api("POST", "/api/access/warned/approve")).body.info.active).toBe(false);
    clock.advance(120_000);
    await t.server.scheduler.tick();
    const activated = (await history("warned")).find(([kind]) => kind === "AccessActivatedEvent")!;
    expect(activated[2].verdicts).toEqual([expect.objectContaining({ policyId: "by-scheduler", effect: "warn", read: { "requester.scope": "system" } })]);

    const rule = { condition: "has(contract.status) && contract.status != 'active'", effect: "deny", gates: ["access.activate"] };
    expect((await t.api("PUT", "/api/policies/active-contract", { name: "Active contract", status: "Accepted", rule })).status).toBe(200);
    const future = new Date(clock.now().getTime() + 86_400_000).toISOString();
    expect((await access("moved", { startDate: future })).status).toBe(200);
    expect((await t.api("POST", "/api/access/moved/approve")).status).toBe(200);
    const moved = await access("moved", { startDate: clock.now().toISOString() });
    expect(moved.status, moved.text).toBe(409);
    expect(moved.headers.get("content-type")).toContain("application/problem+json");
    expect(moved.body.policies[0]).toMatchObject({ policyId: "active-contract", gate: "access.activate" });
    expect((await t.api("GET", "/api/access/moved")).body.info).toMatchObject({ active: false, startDate: future });
  });
});
