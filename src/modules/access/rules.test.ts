import { describe, expect, it } from "vitest";
import { ManualClock } from "../../platform/clock.js";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

/** Every row and rule of docs/product.md §5 over HTTP, with the exact events each appends and who caused them. */
describe.each(DATABASES)("access rules of §5 (%s)", (kind) => {
  const clock = new ManualClock("2026-03-01T09:00:00.000Z");
  const keys: Record<string, { key: string; id: string }> = {};
  let orgKeyId = "";

  const t = suiteServer(kind, {
    clock,
    setup: async (t) => {
      orgKeyId = ((await t.api("GET", "/api/api-keys")).body as any[])[0].id;
      for (const team of ["sales", "marketing", "finance"]) {
        await t.api("PUT", `/api/teams/${team}`, { name: team });
        const created = (await t.api("POST", "/api/api-keys", { displayName: `${team} key`, scope: "team", teamId: team })).body;
        keys[team] = { key: created.key, id: created.id };
      }
      await t.api("PUT", "/api/datacontracts/orders-v1", {
        dataContractSpecification: "0.9.3",
        info: { title: "Orders", version: "1.2.0", owner: "sales" },
        schema: { type: "custom", specification: "orders" },
      });
      await t.api("PUT", "/api/dataproducts/orders", {
        info: { title: "Orders", owner: "sales" },
        outputPorts: [{ id: "warehouse", type: "postgres", dataContractId: "orders-v1" }, { id: "auto", autoApprove: true }],
      });
      await t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing" } });
    },
  });

  const as = (team: string) => ({ key: keys[team].key });
  const by = (team: string) => `api-key:${keys[team].id}`;
  let counter = 0;
  const put = (id: string, body: unknown, team?: string) => t.api("PUT", `/api/access/${id}`, body, team ? as(team) : {});
  const act = (id: string, action: string, body?: unknown, team?: string) => t.api("POST", `/api/access/${id}/${action}`, body, team ? as(team) : {});
  const get = async (id: string) => (await t.api("GET", `/api/access/${id}`)).body;
  /** [kind without Access/Event, principal] of an access's events in the feed. */
  const events = async (id: string) =>
    ((await t.api("GET", "/api/events")).body as any[])
      .filter((e) => e.subject === id)
      .map((e) => [e.type.split(".").pop().replace(/^Access|Event$/g, ""), e.principal]);
  const newRequest = async (info: Record<string, unknown> = {}, consumer: Record<string, unknown> = { teamId: "marketing" }, port = "warehouse") => {
    const id = `rule-${++counter}`;
    const body = { info: { purpose: "Attribution", ...info }, provider: { dataProductId: "orders", outputPortId: port }, consumer };
    const res = await put(id, body, "marketing");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { id, body, res };
  };

  it("the blocker as found: after the tour's cancel, a PUT of only the purpose changes nothing and activates nothing", async () => {
    const body = {
      info: { purpose: "Campaign attribution" },
      provider: { dataProductId: "orders", outputPortId: "warehouse" },
      consumer: { teamId: "marketing" },
    };
    expect((await put("marketing-orders", body)).status).toBe(200);
    expect((await act("marketing-orders", "approve")).status).toBe(200);
    expect((await act("marketing-orders", "provisioning/provisioning-succeeded", { platform: "postgres" })).status).toBe(200);
    const canceled = await act("marketing-orders", "cancel");
    expect(canceled.body.info).toMatchObject({ status: "approved", active: false, endDate: clock.now().toISOString(), canceledAt: clock.now().toISOString() });
    const before = await events("marketing-orders");
    for (const key of [{}, as("marketing")]) {
      const res = await t.api("PUT", "/api/access/marketing-orders", { ...body, info: { purpose: "Churn model" } }, key);
      expect(res.status).toBe(409);
      expect(res.body.detail).toContain("a closed access refuses every change");
    }
    expect((await get("marketing-orders")).info).toMatchObject({ purpose: "Campaign attribution", status: "approved", active: false });
    expect(await events("marketing-orders")).toEqual(before);
    expect(before.map(([k]) => k)).toEqual(["Created", "Requested", "Approved", "Activated", "Provisioned", "Canceled", "Deactivated"]);
    clock.advance(60_000);
    await t.server.scheduler.tick();
    expect(await events("marketing-orders")).toEqual(before);
    clock.set("2026-03-01T09:00:00.000Z");
  });

  it("a closed access takes a PUT that changes only tags, links or custom, from either side, and refuses anything more", async () => {
    const rejected = await newRequest();
    expect((await act(rejected.id, "reject", undefined, "sales")).status).toBe(200);
    const canceled = await newRequest();
    expect((await act(canceled.id, "approve", undefined, "sales")).status).toBe(200);
    expect((await act(canceled.id, "cancel", undefined, "marketing")).status).toBe(200);
    for (const { id } of [rejected, canceled]) {
      // Clients PUT the document as they read it, with their change.
      const body = await get(id);
      const before = await events(id);
      const tagged = await put(id, { ...body, tags: ["permission-revoked"] }, "sales");
      expect(tagged.status, tagged.text).toBe(200);
      expect(tagged.body.tags).toEqual(["permission-revoked"]);
      const labelled = await put(id, { ...body, tags: ["permission-revoked"], links: { ticket: "https://tickets.example.com/9" }, custom: { note: "revoked" } }, "marketing");
      expect(labelled.status, labelled.text).toBe(200);
      // More than labels: the whole PUT is refused, the labels with it.
      const mixed = await put(id, { ...body, info: { ...body.info, purpose: "Churn" }, tags: ["other"] });
      expect(mixed.status).toBe(409);
      expect(mixed.body.detail).toContain("change what was agreed");
      expect((await get(id)).tags).toEqual(["permission-revoked"]);
      expect((await events(id)).slice(before.length)).toEqual([
        ["Updated", by("sales")],
        ["Updated", by("marketing")],
      ]);
      // Nobody outside the access's two sides.
      expect((await put(id, { ...body, tags: [] }, "finance")).status).toBe(403);
    }
  });

  it("the consumer team's key cannot extend or remove the end of an approved access; the provider team's key can", async () => {
    const { id, body } = await newRequest({ endDate: "2027-01-01" });
    await act(id, "approve", undefined, "sales");
    const before = await get(id);
    for (const info of [{ ...body.info, endDate: "2099-01-01" }, { purpose: body.info.purpose }]) {
      const res = await put(id, { ...body, info }, "marketing");
      expect(res.status).toBe(403);
      expect(res.body.detail).toContain("only the provider side may change its dates");
      expect(await get(id)).toEqual(before);
    }
    const extended = await put(id, { ...body, info: { ...body.info, endDate: "2099-01-01" } }, "sales");
    expect(extended.status).toBe(200);
    expect(extended.body.info).toMatchObject({ endDate: "2099-01-01", status: "approved", active: true });
    expect((await events(id)).slice(-1)).toEqual([["Updated", by("sales")]]);
    // Ending it now by a date deactivates it; extending it again reactivates it: it was never canceled.
    await put(id, { ...body, info: { ...body.info, endDate: "2026-02-01" } }, "sales");
    await put(id, { ...body, info: { ...body.info, endDate: "2026-12-01" } }, "sales");
    expect((await events(id)).slice(-4).map(([k]) => k)).toEqual(["Updated", "Deactivated", "Updated", "Activated"]);
  });

  it("create, approve with a comment, and the scheduler's activation, each with its principal", async () => {
    const { id, res } = await newRequest({ startDate: "2026-03-02" });
    expect(res.body.info).toMatchObject({ status: "requested", active: false });
    expect(await events(id)).toEqual([["Created", by("marketing")], ["Requested", by("marketing")]]);
    expect((await act(id, "approve", { comment: "Fine for Q1" }, "marketing")).status).toBe(403);
    expect((await act(id, "approve", { comment: "Fine for Q1" }, "sales")).body.info).toMatchObject({ status: "approved", active: false });
    clock.set("2026-03-02T00:00:00.000Z");
    await t.server.scheduler.tick();
    clock.set("2026-03-01T09:00:00.000Z");
    expect((await events(id)).slice(2)).toEqual([["Approved", by("sales")], ["Activated", "system"]]);
    const history = (await t.api("GET", `/api/access/${id}/history`)).body as any[];
    expect(history.map((h) => [h.kind, h.principal, h.principalName, h.comment])).toEqual([
      ["AccessCreatedEvent", by("marketing"), "marketing key", null],
      ["AccessRequestedEvent", by("marketing"), "marketing key", null],
      ["AccessApprovedEvent", by("sales"), "sales key", "Fine for Q1"],
      ["AccessActivatedEvent", "system", "Steward", null],
    ]);
  });

  it("approval on creation: an autoApprove port, and a consumer of the providing team", async () => {
    const auto = await newRequest({}, { teamId: "marketing" }, "auto");
    expect(auto.res.body.info).toMatchObject({ status: "approved", active: true });
    expect((await events(auto.id)).map(([k]) => k)).toEqual(["Created", "Requested", "Approved", "Activated"]);
    const own = await put("own-team", { info: { purpose: "p" }, provider: { dataProductId: "orders", outputPortId: "warehouse" }, consumer: { teamId: "sales" } }, "sales");
    expect((await events("own-team")).map(([k]) => k)).toEqual(["Created", "Requested", "Approved", "Activated"]);
    expect(own.body.info.status).toBe("approved");
  });

  it("reject with a comment closes the access: every change is 409", async () => {
    const { id, body } = await newRequest();
    expect((await act(id, "reject", { comment: "No PII for marketing" }, "sales")).body.info).toMatchObject({ status: "rejected", active: false });
    expect(await events(id)).toEqual([["Created", by("marketing")], ["Requested", by("marketing")], ["Rejected", by("sales")]]);
    for (const res of [await put(id, { ...body, info: { purpose: "again" } }), await act(id, "approve"), await act(id, "cancel")]) expect(res.status).toBe(409);
    expect((await t.api("GET", `/api/access/${id}/history`)).body.at(-1)).toMatchObject({ kind: "AccessRejectedEvent", comment: "No PII for marketing", principalName: "sales key" });
  });

  it("cancel: either side, the end never later than an existing one, canceledAt set, dates frozen, the scheduler ends it", async () => {
    const { id, body } = await newRequest({ endDate: "2026-04-01" });
    await act(id, "approve", undefined, "sales");
    const res = await act(id, "cancel", { endDate: "2026-05-01", comment: "Budget cut" }, "sales");
    expect(res.body.info).toMatchObject({ status: "approved", active: true, endDate: "2026-04-01", canceledAt: "2026-03-01T09:00:00.000Z" });
    const earlier = await act(id, "cancel", { endDate: "2026-03-15" }, "marketing");
    expect(earlier.body.info).toMatchObject({ endDate: "2026-03-15", canceledAt: "2026-03-01T09:00:00.000Z", active: true });
    const current = await get(id);
    for (const team of ["sales", "marketing"]) {
      const res = await put(id, { ...current, info: { ...current.info, endDate: "2099-01-01" } }, team);
      expect(res.status, team).toBe(409);
      expect(res.body.detail).toContain("canceled");
    }
    expect((await put(id, { ...current, info: { ...current.info, purpose: "Until mid-March" } }, "marketing")).status).toBe(403);
    expect((await put(id, { ...current, tags: ["until-mid-march"] }, "marketing")).status).toBe(200);
    clock.set("2026-03-15T00:00:00.000Z");
    await t.server.scheduler.tick();
    clock.set("2026-03-01T09:00:00.000Z");
    expect((await events(id)).slice(2)).toEqual([
      ["Approved", by("sales")],
      ["Activated", by("sales")],
      ["Canceled", by("sales")],
      ["Canceled", by("marketing")],
      ["Updated", by("marketing")],
      ["Deactivated", "system"],
    ]);
    // A body that leaves the end out removes it: a date change, refused while canceled.
    expect((await put(id, { ...body, info: { purpose: "Again" } }, "marketing")).status).toBe(409);
  });

  it("PUT: terms by either side while open, dates by the consumer only while requested, provider and consumer fixed", async () => {
    const { id, body } = await newRequest({ startDate: "2026-04-01" });
    const terms = { ...body, info: { ...body.info, individualAgreements: "Free until June", nextReassessmentDate: "2026-09-01" }, roles: ["orders.read"], tags: ["q2"] };
    expect((await put(id, terms, "sales")).status).toBe(200);
    expect((await put(id, { ...terms, info: { ...terms.info, startDate: "2026-03-15" } }, "sales")).status).toBe(403);
    const moved = await put(id, { ...terms, info: { ...terms.info, startDate: "2026-03-15" } }, "marketing");
    expect(moved.body).toMatchObject({ info: { startDate: "2026-03-15", individualAgreements: "Free until June", nextReassessmentDate: "2026-09-01" }, roles: ["orders.read"] });
    expect((await events(id)).slice(2)).toEqual([["Updated", by("sales")], ["Updated", by("marketing")]]);
    expect((await put(id, terms, "finance")).status).toBe(403);
    for (const [change, field] of [
      [{ consumer: { teamId: "finance" } }, "consumer"],
      [{ provider: { dataProductId: "orders", outputPortId: "auto" } }, "provider.outputPortId"],
    ] as const) {
      const res = await put(id, { ...terms, ...change });
      expect(res.status).toBe(422);
      expect(res.body.violations.map((v: any) => v.field)).toEqual([field]);
    }
    expect((await put(id, { ...terms, info: { ...terms.info, nextReassessmentDate: "someday" } })).body.violations[0].field).toBe("info.nextReassessmentDate");
    expect((await events(id)).length).toBe(4);
  });

  it("after approval the consumer side cannot change purpose, individualAgreements or roles; the provider side can; tags stay open to both", async () => {
    const { id, body } = await newRequest({ individualAgreements: "Free until June" });
    const requested = { ...body, info: { ...body.info, purpose: "Attribution and churn" }, roles: ["orders.read"] };
    expect((await put(id, requested, "marketing")).status).toBe(200);
    await act(id, "approve", undefined, "sales");
    const before = await get(id);
    const eventsBefore = await events(id);
    for (const change of [
      { info: { ...requested.info, purpose: "Something else entirely" } },
      { info: { ...requested.info, individualAgreements: "Free forever" } },
      { info: { purpose: requested.info.purpose } },
      { roles: ["orders.read", "orders.write"] },
      { roles: [] },
    ]) {
      const res = await put(id, { ...requested, ...change }, "marketing");
      expect(res.status, JSON.stringify(change)).toBe(403);
      expect(res.body.detail).toContain("rule: the consumer side changes purpose, individualAgreements and roles only while the access is requested");
      expect(await get(id)).toEqual(before);
    }
    expect(await events(id)).toEqual(eventsBefore);
    expect((await put(id, { ...requested, tags: ["q3"] }, "marketing")).status).toBe(200);
    const provider = await put(id, { ...requested, tags: ["q3"], info: { ...requested.info, purpose: "Attribution only" }, roles: [] }, "sales");
    expect(provider.status).toBe(200);
    expect(provider.body).toMatchObject({ info: { purpose: "Attribution only", status: "approved" }, roles: [] });
  });

  it("DELETE by either side: Deactivated if active, then Deleted", async () => {
    const { id } = await newRequest();
    await act(id, "approve", undefined, "sales");
    expect((await t.api("DELETE", `/api/access/${id}`, undefined, as("finance"))).status).toBe(403);
    expect((await t.api("DELETE", `/api/access/${id}`, undefined, as("marketing"))).status).toBe(204);
    expect((await events(id)).slice(-2)).toEqual([["Deactivated", by("marketing")], ["Deleted", by("marketing")]]);
  });

  it("a data-product consumer always carries its owner's teamId; sent, it must match", async () => {
    const { id, res } = await newRequest({}, { dataProductId: "campaigns", teamId: "marketing" });
    expect(res.body.consumer).toEqual({ dataProductId: "campaigns", teamId: "marketing" });
    expect(res.body.provider).toMatchObject({ teamId: "sales", dataContractId: "orders-v1", dataContractVersion: "1.2.0" });
    const wrong = await put(`${id}-x`, { info: { purpose: "p" }, provider: { dataProductId: "orders", outputPortId: "warehouse" }, consumer: { dataProductId: "campaigns", teamId: "finance" } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.violations[0].field).toBe("consumer.teamId");
    // A read-back document is a valid PUT body; read-only members are ignored.
    expect((await put(id, { ...res.body, provider: { ...res.body.provider, dataContractVersion: "9.9.9" } })).status).toBe(200);
    expect((await get(id)).provider.dataContractVersion).toBe("1.2.0");
  });

  it("moving a product to another owner moves who approves and who consumes", async () => {
    await t.api("PUT", "/api/dataproducts/ledger", { info: { title: "Ledger", owner: "sales" }, outputPorts: [{ id: "db" }] });
    const id = "moving";
    await put(id, { info: { purpose: "p" }, provider: { dataProductId: "ledger", outputPortId: "db" }, consumer: { dataProductId: "campaigns" } });
    await t.api("PUT", "/api/dataproducts/ledger", { info: { title: "Ledger", owner: "finance" }, outputPorts: [{ id: "db" }] });
    await t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "sales" } });
    expect(await get(id)).toMatchObject({ provider: { teamId: "finance" }, consumer: { dataProductId: "campaigns", teamId: "sales" } });
    expect((await t.api("GET", "/api/access?providerTeamId=finance")).body.map((a: any) => a.id)).toEqual([id]);
    expect((await t.api("GET", "/api/access?consumerTeamId=sales")).body.map((a: any) => a.id)).toContain(id);
    expect((await act(id, "approve", undefined, "sales")).status).toBe(403);
    expect((await act(id, "approve", undefined, "finance")).status).toBe(200);
    expect((await act(id, "cancel", undefined, "marketing")).status).toBe(403);
    expect((await act(id, "cancel", undefined, "sales")).status).toBe(200);
    await t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing" } });
  });

  it("a team that provides or consumes an open access cannot be deleted; a new team of the same id inherits nothing", async () => {
    await t.api("PUT", "/api/teams/growth", { name: "Growth" });
    const id = "growth-orders";
    await put(id, { info: { purpose: "p" }, provider: { dataProductId: "orders", outputPortId: "warehouse" }, consumer: { teamId: "growth" } });
    const refused = await t.api("DELETE", "/api/teams/growth");
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("1 requested, approved or active access");
    await act(id, "approve");
    expect((await t.api("DELETE", "/api/teams/growth")).status).toBe(409);
    await act(id, "cancel");
    expect((await t.api("DELETE", "/api/teams/growth")).status).toBe(204);

    await t.api("PUT", "/api/teams/growth", { name: "Growth, again" });
    const key = (await t.api("POST", "/api/api-keys", { scope: "team", teamId: "growth", displayName: "new growth" })).body.key;
    expect((await t.api("GET", "/api/access?consumerTeamId=growth")).body).toEqual([]);
    expect((await t.api("DELETE", `/api/access/${id}`, undefined, { key })).status).toBe(403);
    expect((await t.api("GET", `/api/access/${id}`)).body.consumer).toEqual({ teamId: "growth" });
  });

  it("a data contract an open access was granted under cannot be deleted, even once no port names it", async () => {
    const contract = (id: string) => ({ dataContractSpecification: "0.9.3", info: { title: id, version: "1.0.0", owner: "sales" }, schema: { type: "custom", specification: "x" } });
    await t.api("PUT", "/api/datacontracts/fees-v1", contract("fees-v1"));
    await t.api("PUT", "/api/datacontracts/fees-v2", contract("fees-v2"));
    await t.api("PUT", "/api/dataproducts/fees", { info: { title: "Fees", owner: "sales" }, outputPorts: [{ id: "db", dataContractId: "fees-v1" }] });
    await put("fees-access", { info: { purpose: "p" }, provider: { dataProductId: "fees", outputPortId: "db" }, consumer: { teamId: "marketing" } });
    await t.api("PUT", "/api/dataproducts/fees", { info: { title: "Fees", owner: "sales" }, outputPorts: [{ id: "db", dataContractId: "fees-v2" }] });
    const refused = await t.api("DELETE", "/api/datacontracts/fees-v1");
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("granted under data contract 'fees-v1'");
    await act("fees-access", "reject");
    expect((await t.api("DELETE", "/api/datacontracts/fees-v1")).status).toBe(204);
  });

  it("the activity view's recent events name their principal; the feed itself does not", async () => {
    const { id } = await newRequest();
    const recent = (await t.api("GET", `/api/events/recent?subject=${id}`)).body as any[];
    expect(recent.map((e) => [e.principal, e.principalName])).toEqual([
      [by("marketing"), "marketing key"],
      [by("marketing"), "marketing key"],
    ]);
    expect(((await t.api("GET", "/api/events")).body as any[]).every((e) => !("principalName" in e))).toBe(true);
    await act(id, "approve");
    const history = (await t.api("GET", `/api/access/${id}/history`)).body as any[];
    expect(history.at(-2)).toMatchObject({ principal: `api-key:${orgKeyId}`, principalName: "Initial organization key" });
    expect((await t.api("GET", "/api/access/nope/history")).status).toBe(404);
  });
});
