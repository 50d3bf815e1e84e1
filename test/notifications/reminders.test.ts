import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/platform/clock.js";
import { remindersDue } from "../../src/notifications/rules.js";
import { DATABASES } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { eventually, Receivers } from "./peers.js";

describe("reminders, as a pure function", () => {
  const now = new Date("2026-03-01T09:00:00.000Z");
  it("given an end date within seven days, an ending reminder; given a reassessment date reached, a reassessment reminder", () => {
    expect(remindersDue({ endAt: "2026-03-08T00:00:00.000Z", nextReassessmentDate: "2026-03-01" }, now)).toEqual([
      { kind: "accessEndingSoon", date: "2026-03-08" },
      { kind: "reassessmentDue", date: "2026-03-01" },
    ]);
    expect(remindersDue({ endAt: "2026-03-09T00:00:00.000Z", nextReassessmentDate: "2026-03-02" }, now)).toEqual([]);
    expect(remindersDue({ endAt: "2026-02-28T00:00:00.000Z", nextReassessmentDate: null }, now)).toEqual([]);
  });
});

describe.each(DATABASES)("reminders (%s)", (kind) => {
  let t: TestServer;
  const clock = new ManualClock("2026-03-01T09:00:00.000Z");
  const receivers = new Receivers();
  let base: string;

  beforeAll(async () => {
    base = await receivers.start();
    t = await startTestServer(kind, { outbound: { allowPrivateNetworks: true, allowedHosts: [] }, notify: { pollMs: 3_600_000 } }, clock);
    await t.api("PUT", "/api/teams/sales", { name: "Sales", members: [{ emailAddress: "sam@example.com" }] });
    await t.api("PUT", "/api/teams/marketing", { name: "Marketing", members: [{ emailAddress: "mia@example.com" }] });
    for (const email of ["sam@example.com", "mia@example.com"]) {
      await t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, t.organizationId, email, "member", "a long password"));
    }
    await t.api("PUT", "/api/teams/sales/notification-channels/slack", { name: "Slack", type: "slack", endpoint: `${base}/ok/sales`, enabled: true });
    await t.api("PUT", "/api/teams/marketing/notification-channels/hook", { name: "Hook", type: "webhook", endpoint: `${base}/hook/marketing`, enabled: true });
    await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres" }] });
    await t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing" } });
    const access = { provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { dataProductId: "campaigns" } };
    await t.api("PUT", "/api/access/ending", { ...access, info: { purpose: "p", endDate: "2026-03-05" } });
    await t.api("PUT", "/api/access/reassess", { ...access, info: { purpose: "p", nextReassessmentDate: "2026-03-10" } });
    await t.api("PUT", "/api/access/later", { ...access, info: { purpose: "p", endDate: "2026-06-01" } });
    for (const id of ["ending", "reassess", "later"]) expect((await t.api("POST", `/api/access/${id}/approve`)).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await receivers.close();
  });

  const kindsOf = async (userEmail: string) => {
    const db = t.server.services.database.db;
    const user = await db.selectFrom("users").select("id").where("email", "=", userEmail).executeTakeFirstOrThrow();
    return (await db.selectFrom("notifications").select(["kind", "event_id"]).where("user_id", "=", user.id).orderBy("row_id").execute()).filter((n) => !n.event_id.match(/^[0-9a-f-]{36}$/));
  };

  it("tells both sides once of an access ending within a week, and of a reassessment once its date has come", async () => {
    const engine = t.server.services.notificationEngine;
    await engine.pass();
    await engine.deriver.reminders();
    await engine.deriver.reminders();
    expect((await kindsOf("sam@example.com")).map((n) => `${n.kind} ${n.event_id}`)).toEqual(["accessEndingSoon accessEndingSoon:ending:2026-03-05"]);
    expect((await kindsOf("mia@example.com")).map((n) => n.kind)).toEqual(["accessEndingSoon"]);
    // What a pass does after looking for reminders: start the deliveries that are due.
    await engine.deliverer.pump();
    await eventually(() => receivers.at("/ok/sales").some((r) => r.body.includes("ends on 2026-03-05")), 10_000, "the Slack reminder");
    // Received is not yet recorded: the clock's jump below would otherwise end the attempt's lease while it records.
    await engine.deliverer.idle();

    clock.set("2026-03-10T08:00:00.000Z");
    await engine.deriver.reminders();
    await engine.deriver.reminders();
    expect((await kindsOf("sam@example.com")).map((n) => n.kind)).toEqual(["accessEndingSoon", "reassessmentDue"]);
    expect((await kindsOf("mia@example.com")).map((n) => n.kind)).toEqual(["accessEndingSoon", "reassessmentDue"]);
    await engine.deliverer.pump();
    await eventually(() => receivers.at("/ok/sales").some((r) => r.body.includes("due for reassessment")), 10_000, "the reassessment reminder");
    expect(receivers.at("/ok/sales").filter((r) => r.body.includes("Access ending soon"))).toHaveLength(1);
    // A webhook channel carries the event log's CloudEvents only; reminders are not events.
    expect(receivers.at("/hook/marketing").length).toBeGreaterThan(0);
    expect(receivers.at("/hook/marketing").every((r) => JSON.parse(r.body).specversion === "1.0")).toBe(true);
  });
});
