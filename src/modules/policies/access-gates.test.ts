import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

/** Policies at access.request, access.approve and access.activate, and approvals by several people. */
describe.each(DATABASES)("policies at access gates (%s)", (kind) => {
  let t: TestServer;
  const keys: Record<string, { key: string; id: string }> = {};
  let counter = 0;

  beforeAll(async () => {
    t = await startTestServer(kind);
    for (const name of ["sales", "sales2", "marketing", "legal", "privacy"]) {
      const team = name === "sales2" ? "sales" : name;
      if (name !== "sales2") await t.api("PUT", `/api/teams/${team}`, { name: team });
      const created = (await t.api("POST", "/api/api-keys", { displayName: `${name} key`, scope: "team", teamId: team })).body;
      keys[name] = { key: created.key, id: created.id };
    }
    await t.api("PUT", "/api/datacontracts/orders-v1", {
      apiVersion: "v3.1.0",
      kind: "DataContract",
      id: "orders-v1",
      version: "1.0.0",
      status: "draft",
      team: { name: "sales" },
      roles: [{ role: "analyst", access: "read", firstLevelApprovers: "legal", secondLevelApprovers: "privacy" }],
    });
    const put = await t.api("PUT", "/api/dataproducts/orders", {
      dataProductSpecification: "0.0.1",
      info: { title: "Orders", owner: "sales" },
      outputPorts: [
        { id: "pii", type: "postgres", containsPii: true, dataContractId: "orders-v1" },
        { id: "open", type: "postgres", autoApprove: true },
      ],
    });
    expect(put.status, put.text).toBe(200);
  });
  afterAll(() => t?.close());

  const as = (name: string) => ({ key: keys[name]!.key });
  const request = (port: string, info: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    t.api("PUT", `/api/access/a-${++counter}`, { info: { purpose: "Attribution", ...info }, provider: { dataProductId: "orders", outputPortId: port }, consumer: { teamId: "marketing" }, ...extra }, as("marketing"));
  const approve = (id: string, name: string, comment?: string) => t.api("POST", `/api/access/${id}/approve`, comment ? { comment } : undefined, as(name));
  const events = async (id: string) =>
    ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.subject === id).map((e) => [e.type.split(".").pop(), e.principal, e.data]);
  const policy = (id: string, name: string, rule: Record<string, unknown>, status = "Accepted") => t.api("PUT", `/api/policies/${id}`, { name, status, rule });

  it("refuses a request a policy denies, explaining the policy, its rule and the values it read", async () => {
    const condition = "port.containsPii && !has(access.info.endDate)";
    expect((await policy("end-date", "PII needs an end date", { condition, effect: "deny", gates: ["access.request"], message: "Give PII access an end date." })).status).toBe(200);
    const refused = await request("pii");
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain("'PII needs an end date' (end-date): Give PII access an end date.");
    expect(refused.body.policies).toEqual([
      { policyId: "end-date", name: "PII needs an end date", effect: "deny", gate: "access.request", rule: condition, message: "Give PII access an end date.", read: { "access.info.endDate": null, "port.containsPii": true } },
    ]);
    expect((await t.api("GET", `/api/access/a-${counter}`)).status).toBe(404);
    // Outside what the rule looks at, requests pass.
    expect((await request("open")).status).toBe(200);
    expect((await policy("end-date", "PII needs an end date", { condition, effect: "deny", gates: ["access.request"] }, "Deprecated")).status).toBe(200);
  });

  it("holds a PII access for two distinct eligible approvers: one keeps it requested, the same one twice counts once, a second approves", async () => {
    const rule = { condition: "port.containsPii", effect: "require-approvals", gates: ["access.request"], approvals: { count: 2 } };
    expect((await policy("two", "Two approvers for PII", rule)).status).toBe(200);
    const created = await request("pii", { endDate: "2027-01-01" });
    expect(created.status, created.text).toBe(200);
    const id = created.body.id;
    const first = await approve(id, "sales", "looks fine");
    expect(first.status, first.text).toBe(200);
    expect(first.body.info.status).toBe("requested");
    // Before the next person decides, the access says what its policies say, changing nothing.
    const view = await t.api("GET", `/api/access/${id}/policies`, undefined, as("sales2"));
    expect(view.status, view.text).toBe(200);
    expect(view.body.requirements).toEqual([{ source: "two", name: "Two approvers for PII", count: 2, given: 1, eligibleNow: true }]);
    expect(view.body.verdicts).toEqual([expect.objectContaining({ policyId: "two", gate: "access.request", effect: "require-approvals" })]);
    expect(view.body.approvedBy).toEqual([`api-key:${keys.sales!.id}`]);
    expect((await t.api("GET", `/api/access/${id}/policies`, undefined, as("marketing"))).body.requirements[0].eligibleNow).toBe(false);
    expect((await approve(id, "sales")).body.info.status).toBe("requested");
    // The consumer is no approver.
    expect((await approve(id, "marketing")).status).toBe(403);
    const second = await approve(id, "sales2");
    expect(second.body.info).toMatchObject({ status: "approved", active: true });
    const log = await events(id);
    expect(log.map(([kind, principal]) => [kind, principal])).toEqual([
      ["AccessCreatedEvent", `api-key:${keys.marketing!.id}`],
      ["AccessRequestedEvent", `api-key:${keys.marketing!.id}`],
      ["AccessApprovalRecordedEvent", `api-key:${keys.sales!.id}`],
      ["AccessApprovalRecordedEvent", `api-key:${keys.sales2!.id}`],
      ["AccessApprovedEvent", `api-key:${keys.sales2!.id}`],
      ["AccessActivatedEvent", `api-key:${keys.sales2!.id}`],
    ]);
    expect(log[1]![2].verdicts).toEqual([expect.objectContaining({ policyId: "two", effect: "require-approvals", count: 2, read: { "port.containsPii": true } })]);
    expect(log[2]![2].approvals).toEqual({ given: 1, needed: 2 });
    expect(log[3]![2].approvals).toEqual({ given: 2, needed: 2 });
    const history = (await t.api("GET", `/api/access/${id}/history`)).body as any[];
    expect(history.find((h) => h.kind === "AccessApprovalRecordedEvent").comment).toBe("looks fine");
    // Held ports are not approved at once, even when marked autoApprove.
    expect((await policy("two", "Two approvers everywhere", { ...rule, condition: "true" })).status).toBe(200);
    expect((await request("open")).body.info.status).toBe("requested");
    expect((await policy("two", "Two approvers", rule, "Rejected")).status).toBe(200);
  });

  it("lets named teams approve, and an ODCS contract's first- and second-level approvers both have to", async () => {
    const created = await request("pii", { endDate: "2027-01-01" }, { roles: ["analyst"] });
    const id = created.body.id;
    expect(created.body.info.status).toBe("requested");
    // The provider team is not among the contract's approvers.
    expect((await approve(id, "sales")).status).toBe(403);
    // The second level approves only once the first is complete: before, nothing is recorded.
    const early = await approve(id, "privacy");
    expect(early.status).toBe(409);
    expect(early.body.detail).toContain("counts only after 'firstLevelApprovers of the contract's role 'analyst'' is complete");
    const waiting = (await t.api("GET", `/api/access/${id}/policies`, undefined, as("privacy"))).body.requirements;
    expect(waiting[1]).toMatchObject({ source: "contract-role:analyst:second", after: "contract-role:analyst:first", given: 0, eligibleNow: false });
    expect((await approve(id, "legal")).body.info.status).toBe("requested");
    expect((await t.api("GET", `/api/access/${id}/policies`, undefined, as("privacy"))).body.requirements[1].eligibleNow).toBe(true);
    expect((await approve(id, "privacy")).body.info.status).toBe("approved");
    expect((await events(id)).filter(([k]) => k === "AccessApprovedEvent")).toHaveLength(1);
  });

  it("counts only the team roles a rule names: a member of the provider team without that role, or a team key, is refused with the reason", async () => {
    const people = t.server.services.people;
    await t.server.services.database.db.transaction().execute(async (trx) => {
      await people.addMember(trx, t.organizationId, "ann@example.com", "member", "a long enough password 1");
      await people.addMember(trx, t.organizationId, "mia@example.com", "member", "a long enough password 2");
    });
    const members = [{ emailAddress: "ann@example.com", role: "owner" }, { emailAddress: "mia@example.com", role: "member" }];
    expect((await t.api("PUT", "/api/teams/sales", { name: "sales", members })).status).toBe(200);
    for (const name of ["ann", "mia"]) keys[name] = (await t.api("POST", "/api/api-keys", { scope: "user", userId: `${name}@example.com` })).body;
    const rule = { condition: "access.info.purpose == 'Owners decide'", effect: "require-approvals", gates: ["access.request"], approvals: { count: 1, eligible: { teamRoles: ["owner"] } } };
    expect((await policy("owners", "Owners decide", rule)).status).toBe(200);
    const id = (await request("open", { purpose: "Owners decide" })).body.id;
    const member = await approve(id, "mia");
    expect(member.status).toBe(403);
    expect(member.headers.get("content-type")).toContain("application/problem+json");
    expect(member.body.detail).toContain("'Owners decide' (owners) counts only the team roles 'owner', and this principal acts in 'sales' as 'member'");
    expect((await approve(id, "sales")).body.detail).toContain("with no team role (a team key)");
    expect((await t.api("GET", `/api/access/${id}`)).body.info.status).toBe("requested");
    const byOwner = await approve(id, "ann");
    expect(byOwner.status, byOwner.text).toBe(200);
    expect(byOwner.body.info.status).toBe("approved");
    expect((await policy("owners", "Owners decide", rule, "Deprecated")).status).toBe(200);
  });

  it("refuses an approval a policy denies (409), and an approval that would activate where access.activate denies", async () => {
    expect((await policy("weekday", "No marketing approvals", { condition: "access.consumer.teamId == 'marketing'", effect: "deny", gates: ["access.approve"] })).status).toBe(200);
    const created = await request("pii", { endDate: "2027-01-01" });
    const refused = await approve(created.body.id, "sales");
    expect(refused.status).toBe(409);
    expect(refused.body.policies[0]).toMatchObject({ policyId: "weekday", gate: "access.approve", read: { "access.consumer.teamId": "marketing" } });
    expect((await t.api("GET", `/api/access/${created.body.id}`)).body.info.status).toBe("requested");
    expect((await policy("weekday", "No marketing approvals", { condition: "false", effect: "deny", gates: ["access.approve"] }, "Deprecated")).status).toBe(200);

    expect((await policy("later", "Start later", { condition: "!has(access.info.startDate)", effect: "deny", gates: ["access.activate"] })).status).toBe(200);
    const activating = await approve(created.body.id, "sales");
    expect(activating.status).toBe(409);
    expect(activating.body.policies[0].gate).toBe("access.activate");
    const later = await request("pii", { startDate: "2030-01-01", endDate: "2031-01-01" });
    expect((await approve(later.body.id, "sales")).body.info).toMatchObject({ status: "approved", active: false });
  });

  it("warns without refusing, and stops a hostile rule with a clear problem while /health/live answers", async () => {
    expect((await policy("later", "Start later", { condition: "false", effect: "deny", gates: ["access.activate"] }, "Deprecated")).status).toBe(200);
    expect((await policy("warn", "Purpose", { condition: "size(access.info.purpose) < 20", effect: "warn", gates: ["access.request"], message: "Say more." })).status).toBe(200);
    const warned = await request("open");
    expect(warned.status).toBe(200);
    const requested = (await events(warned.body.id)).find(([k]) => k === "AccessRequestedEvent")!;
    expect(requested[2].verdicts).toEqual([expect.objectContaining({ policyId: "warn", effect: "warn", read: { "access.info.purpose": "Attribution" } })]);
    expect((await policy("warn", "Purpose", { condition: "false", effect: "warn", gates: ["access.request"] }, "Deprecated")).status).toBe(200);

    const ten = "[0,1,2,3,4,5,6,7,8,9]";
    const hostile = `${ten}.map(a, ${ten}.map(b, ${ten}.map(c, ${ten}.map(d, ${ten}.map(e, ${ten}.map(f, ${ten}.map(g, ${ten}.map(h, access.info.purpose)))))))).size() > 0`;
    expect((await policy("hostile", "Hostile", { condition: hostile, effect: "deny", gates: ["access.request"] })).status).toBe(200);
    let live = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const res = await fetch(`${t.url}/health/live`);
        if (res.status === 200) live++;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const stopped = await request("open");
    polling = false;
    await poll;
    expect(stopped.status).toBe(422);
    expect(stopped.body.detail).toMatch(/limit/);
    expect(stopped.body.detail).toContain("'Hostile' (hostile)");
    expect(live).toBeGreaterThan(0);
    expect((await policy("hostile", "Hostile", { condition: "false", effect: "deny", gates: ["access.request"] }, "Deprecated")).status).toBe(200);
    expect((await request("open")).status).toBe(200);
  }, 60_000);
});
