import { describe, expect, it } from "vitest";
import { ManualClock } from "../../platform/clock.js";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { accessRepository } from "./repository.js";

describe.each(DATABASES)("access requests (%s)", (kind) => {
  const clock = new ManualClock("2026-03-01T09:00:00.000Z");
  const keys: Record<string, string> = {};

  const t = suiteServer(kind, {
    clock,
    setup: async (t) => {
      for (const team of ["sales", "marketing", "finance"]) {
        await t.api("PUT", `/api/teams/${team}`, { name: team });
        keys[team] = (await t.api("POST", "/api/api-keys", { displayName: team, scope: "team", teamId: team })).body.key;
      }
      await t.api("PUT", "/api/datacontracts/orders-v1", { dataContractSpecification: "0.9.3", info: { title: "Orders", version: "1.0.0", owner: "sales" }, schema: { type: "custom", specification: "x" } });
      await t.api("PUT", "/api/dataproducts/orders", {
        info: { title: "Orders", owner: "sales" },
        outputPorts: [
          { id: "pg", type: "postgres", dataContractId: "orders-v1" },
          { id: "auto", type: "postgres", autoApprove: true },
        ],
      });
      await t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing" } });
    },
  });

  let counter = 0;
  const request = async (overrides: { info?: Record<string, unknown>; provider?: Record<string, unknown>; consumer?: Record<string, unknown> } = {}, key?: string) => {
    const id = `acc-${++counter}`;
    const res = await t.api(
      "PUT",
      `/api/access/${id}`,
      {
        info: { purpose: "Campaign analytics", ...overrides.info },
        provider: { dataProductId: "orders", outputPortId: "pg", ...overrides.provider },
        consumer: overrides.consumer ?? { dataProductId: "campaigns" },
      },
      key ? { key } : {},
    );
    return { id, res };
  };
  const eventsOf = async (id: string) =>
    ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.subject === id).map((e) => e.type.split(".").pop().replace(/^Access|Event$/g, ""));
  const act = (id: string, action: string, body?: unknown, key?: string) => t.api("POST", `/api/access/${id}/${action}`, body, key ? { key } : {});
  const tick = () => t.server.scheduler.tick();

  it("creates a request: status requested, derived provider fields, Created then Requested", async () => {
    const { id, res } = await request({ provider: { teamId: "ignored", dataContractId: "ignored" }, info: { status: "approved", active: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get("location-html")).toBe(`http://steward.test/access/${id}`);
    expect(res.body).toMatchObject({
      id,
      info: { purpose: "Campaign analytics", status: "requested", active: false },
      provider: { dataProductId: "orders", outputPortId: "pg", teamId: "sales", dataContractId: "orders-v1" },
      consumer: { dataProductId: "campaigns" },
    });
    expect(await eventsOf(id)).toEqual(["Created", "Requested"]);
    // What a contract's deletion checks: the requests made under it.
    expect(await accessRepository.countOpenForContract(t.server.services.database.db, t.organizationId, "orders-v1", clock.now().toISOString())).toBe(1);
  });

  it("creates with POST: a UUID id, 201 and Location", async () => {
    const res = await t.api("POST", "/api/access", { info: { purpose: "p" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { userId: "ada@example.com" } });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(res.headers.get("location")).toBe(`/api/access/${res.body.id}`);
    expect((await t.api("GET", `/api/access/${res.body.id}`)).body.consumer).toEqual({ userId: "ada@example.com" });
    expect((await t.api("POST", "/api/access", { id: "chosen", info: { purpose: "p" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { userId: "u" } })).status).toBe(422);
  });

  it("approve: Approved then Activated when there is no start date", async () => {
    const { id } = await request();
    const res = await act(id, "approve");
    expect(res.status).toBe(200);
    expect(res.body.info).toMatchObject({ status: "approved", active: true });
    expect(await eventsOf(id)).toEqual(["Created", "Requested", "Approved", "Activated"]);
  });

  it("reject: Rejected", async () => {
    const { id } = await request();
    expect((await act(id, "reject")).body.info).toMatchObject({ status: "rejected", active: false });
    expect(await eventsOf(id)).toEqual(["Created", "Requested", "Rejected"]);
  });

  it("cancel of an active access without a body: stays approved, ends now, Canceled then Deactivated", async () => {
    const { id } = await request();
    await act(id, "approve");
    const res = await act(id, "cancel");
    const now = clock.now().toISOString();
    expect(res.body.info).toMatchObject({ status: "approved", active: false, endDate: now, canceledAt: now });
    expect(await eventsOf(id)).toEqual(["Created", "Requested", "Approved", "Activated", "Canceled", "Deactivated"]);
  });

  it("cancel of a request: 409, withdraw it by deleting it", async () => {
    const { id } = await request();
    const res = await act(id, "cancel");
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain("a request is withdrawn by deleting it");
    expect(await eventsOf(id)).toEqual(["Created", "Requested"]);
  });

  it("cancel with a future end date keeps the access until then; the scheduler deactivates it", async () => {
    const { id } = await request();
    await act(id, "approve");
    const res = await act(id, "cancel", { endDate: "2026-03-05" });
    expect(res.body.info).toMatchObject({ status: "approved", active: true, endDate: "2026-03-05", canceledAt: clock.now().toISOString() });
    expect(await eventsOf(id)).toEqual(["Created", "Requested", "Approved", "Activated", "Canceled"]);
    clock.set("2026-03-04T23:59:59.999Z");
    await tick();
    expect(await eventsOf(id)).toHaveLength(5);
    clock.set("2026-03-05T00:00:00.000Z");
    await tick();
    await tick();
    expect((await eventsOf(id)).slice(5)).toEqual(["Deactivated"]);
    expect((await t.api("GET", `/api/access/${id}`)).body.info).toMatchObject({ status: "approved", active: false });
    clock.set("2026-03-01T09:00:00.000Z");
  });

  it("approves at once on an autoApprove port, and when the consumer is the providing team", async () => {
    const auto = await request({ provider: { outputPortId: "auto" } });
    expect(auto.res.body.info).toMatchObject({ status: "approved", active: true });
    expect(await eventsOf(auto.id)).toEqual(["Created", "Requested", "Approved", "Activated"]);
    const sameTeam = await request({ consumer: { teamId: "sales" } });
    expect(sameTeam.res.body.info.status).toBe("approved");
    expect(await eventsOf(sameTeam.id)).toEqual(["Created", "Requested", "Approved", "Activated"]);
  });

  it("activates at the start date and deactivates at the end date, exactly once", async () => {
    const { id, res } = await request({ info: { startDate: "2026-03-10", endDate: "2026-03-20T12:00:00Z" } });
    expect(res.body.info).toMatchObject({ startDate: "2026-03-10", endDate: "2026-03-20T12:00:00Z" });
    await act(id, "approve");
    expect(await eventsOf(id)).toEqual(["Created", "Requested", "Approved"]);
    clock.set("2026-03-10T00:00:00.000Z");
    await Promise.all([tick(), tick(), tick()]);
    expect((await t.api("GET", `/api/access/${id}`)).body.info.active).toBe(true);
    clock.set("2026-03-20T12:00:00.000Z");
    await Promise.all([tick(), tick()]);
    expect(await eventsOf(id)).toEqual(["Created", "Requested", "Approved", "Activated", "Deactivated"]);
    clock.set("2026-03-01T09:00:00.000Z");
  });

  it("answers 409 naming the stage and the rule for every illegal transition, and emits nothing", async () => {
    const requested = (await request()).id;
    const approved = (await request()).id;
    await act(approved, "approve");
    const rejected = (await request()).id;
    await act(rejected, "reject");
    const canceled = (await request()).id;
    await act(canceled, "approve");
    await act(canceled, "cancel");
    const cases: Array<[string, string, string]> = [
      [requested, "cancel", "is requested"],
      [approved, "approve", "is approved"],
      [approved, "reject", "is approved"],
      [rejected, "approve", "is closed"],
      [rejected, "reject", "is closed"],
      [rejected, "cancel", "is closed"],
      [canceled, "approve", "is closed"],
      [canceled, "reject", "is closed"],
      [canceled, "cancel", "is closed"],
    ];
    for (const [id, action, words] of cases) {
      const before = await eventsOf(id);
      const res = await act(id, action);
      expect(res.status, `${action}: ${words}`).toBe(409);
      expect(res.headers.get("content-type")).toMatch(/problem\+json/);
      expect(res.body.detail).toContain(words);
      expect(res.body.detail).toContain("rule: ");
      expect(await eventsOf(id)).toEqual(before);
    }
    expect((await act("no-such-access", "approve")).status).toBe(404);
  });

  it("PUT of other fields emits Updated (and the activity change it causes); an identical PUT emits nothing", async () => {
    const { id } = await request();
    await act(id, "approve");
    const current = (await t.api("GET", `/api/access/${id}`)).body;
    expect((await t.api("PUT", `/api/access/${id}`, current)).status).toBe(200);
    expect(await eventsOf(id)).toEqual(["Created", "Requested", "Approved", "Activated"]);
    const updated = await t.api("PUT", `/api/access/${id}`, { ...current, info: { ...current.info, purpose: "Churn model" }, tags: ["ml"] });
    expect(updated.body).toMatchObject({ info: { purpose: "Churn model", status: "approved", active: true }, tags: ["ml"] });
    const ended = await t.api("PUT", `/api/access/${id}`, { ...updated.body, info: { ...updated.body.info, endDate: "2026-02-01" } });
    expect(ended.body.info.active).toBe(false);
    expect((await eventsOf(id)).slice(4)).toEqual(["Updated", "Updated", "Deactivated"]);
    const moved = await t.api("PUT", `/api/access/${id}`, { ...ended.body, consumer: { teamId: "finance" } });
    expect(moved.status).toBe(422);
    expect(moved.body.violations[0].field).toBe("consumer");
  });

  it("DELETE: Deactivated if active, then Deleted", async () => {
    const active = (await request()).id;
    await act(active, "approve");
    expect((await t.api("DELETE", `/api/access/${active}`)).status).toBe(204);
    expect((await eventsOf(active)).slice(-2)).toEqual(["Deactivated", "Deleted"]);
    const requested = (await request()).id;
    await t.api("DELETE", `/api/access/${requested}`);
    expect(await eventsOf(requested)).toEqual(["Created", "Requested", "Deleted"]);
    expect((await t.api("GET", `/api/access/${requested}`)).status).toBe(404);
  });

  it("validates references, the consumer and the dates, naming each field", async () => {
    const cases: Array<[Record<string, any>, string[]]> = [
      [{ provider: { dataProductId: "nope" } }, ["provider.dataProductId"]],
      [{ provider: { outputPortId: "nope" } }, ["provider.outputPortId"]],
      [{ consumer: { teamId: "marketing", userId: "u" } }, ["consumer"]],
      [{ consumer: {} }, ["consumer"]],
      [{ consumer: { teamId: "ghosts" } }, ["consumer.teamId"]],
      [{ consumer: { dataProductId: "ghost-product" } }, ["consumer.dataProductId"]],
      [{ info: { startDate: "soon", endDate: "2026-02-30" } }, ["info.startDate", "info.endDate"]],
      [{ info: { startDate: "2026-05-01", endDate: "2026-04-01" } }, ["info.endDate"]],
    ];
    for (const [overrides, fields] of cases) {
      const { id, res } = await request(overrides);
      expect(res.status, JSON.stringify(overrides)).toBe(422);
      expect(res.body.violations.map((v: any) => v.field)).toEqual(fields);
      expect((await t.api("GET", `/api/access/${id}`)).status).toBe(404);
    }
    expect((await act((await request()).id, "cancel", { endDate: "never" })).status).toBe(422);
  });

  it("records provisioning reports: events with status, fields kept, PUT emits only on a status change", async () => {
    const { id } = await request();
    await act(id, "approve");
    expect((await t.api("GET", `/api/access/${id}/provisioning`)).status).toBe(404);
    const started = await t.api("POST", `/api/access/${id}/provisioning/provisioning-started`, { platform: "postgres", executor: "pg-connector" });
    expect(started.body).toMatchObject({ status: "provisioning", platform: "postgres", executor: "pg-connector", provisioningStartedAt: clock.now().toISOString() });
    const done = await t.api("POST", `/api/access/${id}/provisioning/provisioning-succeeded`, { reference: "GRANT SELECT" });
    expect(done.body).toMatchObject({ status: "provisioned", platform: "postgres", executor: "pg-connector", reference: "GRANT SELECT" });
    expect((await t.api("GET", `/api/access/${id}`)).body.provisioning.status).toBe("provisioned");
    // Each report is an operation of its own: an unknown one is a path that does not exist.
    const unknown = await t.api("POST", `/api/access/${id}/provisioning/provisioning-exploded`, {});
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");

    const replaced = await t.api("PUT", `/api/access/${id}/provisioning`, { status: "provisioned", platform: "snowflake" });
    expect(replaced.body).toMatchObject({ status: "provisioned", platform: "snowflake" });
    expect(replaced.body.executor).toBeUndefined();
    await t.api("PUT", `/api/access/${id}/provisioning`, { status: "deprovisioned" });
    expect((await t.api("PUT", `/api/access/${id}/provisioning`, { platform: "x" })).status).toBe(422);
    for (const transition of ["provisioning-failed", "deprovisioning-started", "deprovisioning-succeeded", "deprovisioning-failed"]) {
      expect((await t.api("POST", `/api/access/${id}/provisioning/${transition}`)).status).toBe(200);
    }
    const events = ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.subject === id).slice(4);
    // The platform rides along once a report named one (the reference product's payload), and
    // the replacing PUT without one left the record without it.
    expect(events.map((e) => [e.type.split(".").pop(), e.data.status, e.data.platform])).toEqual([
      ["AccessProvisioningStartedEvent", "provisioning", "postgres"],
      ["AccessProvisionedEvent", "provisioned", "postgres"],
      ["AccessDeprovisionedEvent", "deprovisioned", undefined],
      ["AccessProvisioningFailedEvent", "provisioning-failed", undefined],
      ["AccessDeprovisioningStartedEvent", "deprovisioning", undefined],
      ["AccessDeprovisionedEvent", "deprovisioned", undefined],
      ["AccessDeprovisioningFailedEvent", "deprovisioning-failed", undefined],
    ]);
  });

  it("answers ETags and judges If-Match and If-None-Match as every resource does, changing nothing when they fail", async () => {
    const { id } = await request();
    const read = await t.api("GET", `/api/access/${id}`);
    const etag = read.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await t.api("GET", `/api/access/${id}`, undefined, { headers: { "if-none-match": etag } })).status).toBe(304);
    const eventsBefore = await eventsOf(id);
    const body = { info: { purpose: "Changed" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { dataProductId: "campaigns" } };

    const stale = await t.api("PUT", `/api/access/${id}`, body, { headers: { "if-match": '"stale"' } });
    expect(stale.status).toBe(412);
    expect(stale.headers.get("content-type")).toContain("application/problem+json");
    expect((await t.api("PUT", `/api/access/${id}`, body, { headers: { "if-none-match": "*" } })).status).toBe(412);
    expect((await t.api("DELETE", `/api/access/${id}`, undefined, { headers: { "if-match": '"stale"' } })).status).toBe(412);
    expect((await t.api("GET", `/api/access/${id}`)).body.info.purpose).toBe("Campaign analytics");
    expect(await eventsOf(id)).toEqual(eventsBefore);

    const changed = await t.api("PUT", `/api/access/${id}`, body, { headers: { "if-match": etag } });
    expect(changed.status).toBe(200);
    const newTag = changed.headers.get("etag");
    expect(newTag).not.toBe(etag);
    expect((await t.api("GET", `/api/access/${id}`)).headers.get("etag")).toBe(newTag);
    expect((await t.api("PUT", "/api/access/fresh-" + id, body, { headers: { "if-none-match": "*" } })).status).toBe(200);
    expect((await t.api("DELETE", `/api/access/${id}`, undefined, { headers: { "if-match": newTag! } })).status).toBe(204);
  });

  it("ignores read-only members whatever they hold, instead of judging them", async () => {
    const { id, res } = await request({
      info: { status: 5, active: "no", canceledAt: ["x"] },
      provider: { teamId: 7, dataContractId: { a: 1 }, dataContractVersion: false },
    });
    expect(res.status).toBe(200);
    const again = await t.api("PUT", `/api/access/${id}`, { ...res.body, provisioning: { status: "bogus" } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ info: { status: "requested", active: false }, provider: { teamId: "sales", dataContractId: "orders-v1" } });
    expect(again.body.provisioning).toBeUndefined();
  });

  it("refuses to delete a data product while it consumes through an open access, so its team keeps its side", async () => {
    await t.api("PUT", "/api/dataproducts/consumer-only", { info: { title: "Consumer", owner: "marketing" } });
    const { id } = await request({ consumer: { dataProductId: "consumer-only" } });
    const refused = await t.api("DELETE", "/api/dataproducts/consumer-only");
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("consumer-only");
    expect((await t.api("GET", "/api/dataproducts/consumer-only")).status).toBe(200);
    // Withdrawn by its own team, the request no longer holds the product.
    expect((await t.api("DELETE", `/api/access/${id}`, undefined, { key: keys.marketing })).status).toBe(204);
    expect((await t.api("DELETE", "/api/dataproducts/consumer-only")).status).toBe(204);
  });

  it("holds the ODPS port a bare name resolved to, so a later version does not free it for removal", async () => {
    const odps = (ports: string[]) => ({
      apiVersion: "v1.0.0",
      kind: "DataProduct",
      id: "shipments",
      status: "active",
      team: { name: "sales" },
      outputPorts: ports.map((version) => ({ name: "events", version })),
    });
    expect((await t.api("PUT", "/api/dataproducts/shipments", odps(["1.0.0"]))).status).toBe(200);
    const { id, res } = await request({ provider: { dataProductId: "shipments", outputPortId: "events" } });
    expect(res.status, res.text).toBe(200);
    // A second version makes the bare name name two ports; the access still holds the first.
    expect((await t.api("PUT", "/api/dataproducts/shipments", odps(["1.0.0", "2.0.0"]))).status).toBe(200);
    const removed = await t.api("PUT", "/api/dataproducts/shipments", odps(["2.0.0"]));
    expect(removed.status, removed.text).toBe(409);
    expect(removed.body.detail).toContain("'events@1.0.0'");
    // The document keeps the name it was requested by.
    expect((await t.api("GET", `/api/access/${id}`)).body.provider.outputPortId).toBe("events");
    expect((await t.api("DELETE", `/api/access/${id}`)).status).toBe(204);
    expect((await t.api("PUT", "/api/dataproducts/shipments", odps(["2.0.0"]))).status).toBe(200);
  });

  it("lets team keys act only on their side of an access", async () => {
    // marketing consumes (through its data product campaigns), sales provides, finance is a bystander.
    const mine = await request({}, keys.marketing);
    expect(mine.res.status).toBe(200);
    expect((await request({ consumer: { teamId: "finance" } }, keys.marketing)).res.status).toBe(403);
    expect((await request({}, keys.sales)).res.status).toBe(403);
    expect((await request({}, keys.finance)).res.status).toBe(403);

    expect((await act(mine.id, "approve", undefined, keys.marketing)).status).toBe(403);
    expect((await act(mine.id, "approve", undefined, keys.finance)).status).toBe(403);
    expect((await t.api("POST", `/api/access/${mine.id}/provisioning/provisioning-started`, {}, { key: keys.marketing })).status).toBe(403);
    expect((await act(mine.id, "approve", undefined, keys.sales)).status).toBe(200);
    expect((await t.api("POST", `/api/access/${mine.id}/provisioning/provisioning-started`, {}, { key: keys.sales })).status).toBe(200);
    expect((await act(mine.id, "cancel", undefined, keys.finance)).status).toBe(403);
    expect((await t.api("DELETE", `/api/access/${mine.id}`, undefined, { key: keys.finance })).status).toBe(403);
    expect((await act(mine.id, "cancel", { endDate: "2026-06-01" }, keys.sales)).status).toBe(200);
    expect((await act(mine.id, "cancel", undefined, keys.marketing)).status).toBe(200);
    expect((await t.api("DELETE", `/api/access/${mine.id}`, undefined, { key: keys.marketing })).status).toBe(204);

    const toReject = await request({}, keys.marketing);
    expect((await act(toReject.id, "reject", undefined, keys.marketing)).status).toBe(403);
    expect((await act(toReject.id, "reject", undefined, keys.sales)).status).toBe(200);
    expect((await t.api("GET", `/api/access/${toReject.id}`, undefined, { key: keys.finance })).status).toBe(200);
  });

  it("lists with the filters of §5: consumerType in any spelling, status, active, teams and data products", async () => {
    const byTeam = (await request({ consumer: { teamId: "finance" } })).id;
    // Earlier tests moved the clock back and forth: let the scheduler settle what is due now, or
    // its background run could flip an access between reading the documents and filtering.
    while ((await tick()) > 0);
    const ids = async (q: string) => (await t.api("GET", `/api/access${q}`)).body.map((a: any) => a.id);
    const all = await ids("");
    expect(all.length).toBeGreaterThan(10);
    const docs = (await t.api("GET", "/api/access")).body as any[];
    const where = (f: (a: any) => boolean) => docs.filter(f).map((a) => a.id);
    for (const spelling of ["team", "TEAM", "Team"]) expect(await ids(`?consumerType=${spelling}`)).toEqual(where((a) => a.consumer.teamId !== undefined && a.consumer.dataProductId === undefined));
    for (const spelling of ["dataproduct", "dataProduct", "DATAPRODUCT"]) expect(await ids(`?consumerType=${spelling}`)).toEqual(where((a) => a.consumer.dataProductId !== undefined));
    expect(await ids("?consumerType=user")).toEqual(where((a) => a.consumer.userId !== undefined));
    expect(await ids("?consumerType=team")).toContain(byTeam);
    expect(await ids("?consumerDataProductId=campaigns")).not.toContain(byTeam);
    expect(await ids("?providerDataProductId=orders")).toEqual(all);
    expect(await ids("?providerDataProductId=campaigns")).toEqual([]);
    expect(await ids("?dataProductId=campaigns")).toEqual(where((a) => a.consumer.dataProductId === "campaigns"));
    expect(await ids("?providerTeamId=sales")).toEqual(all);
    expect(await ids("?providerTeamId=marketing")).toEqual([]);
    expect(await ids("?consumerTeamId=finance")).toEqual(where((a) => a.consumer.teamId === "finance"));
    expect(await ids("?consumerTeamId=marketing")).toEqual(where((a) => a.consumer.teamId === "marketing"));
    for (const status of ["requested", "approved", "rejected"]) expect(await ids(`?status=${status}`)).toEqual(where((a) => a.info.status === status));
    expect(await ids("?active=true")).toEqual(where((a) => a.info.active));
    expect(await ids("?active=false")).toEqual(where((a) => !a.info.active));
    expect(await ids("?status=approved&active=false&consumerType=dataproduct")).toEqual(where((a) => a.info.status === "approved" && !a.info.active && a.consumer.dataProductId));
    for (const bad of ["consumerType=robot", "status=canceled", "active=yes"]) {
      const res = await t.api("GET", `/api/access?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/problem\+json/);
    }
    const page = await t.api("GET", "/api/access?pageSize=3&p=1");
    expect(page.body.map((a: any) => a.id)).toEqual(all.slice(3, 6));
  });
});
