import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbtEvent } from "../../src/modules/lineage/lineage.fixtures.js";
import { DATABASES } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { eventually, MailServer, quickNotifications, Receivers } from "./peers.js";

/**
 * The triggers beyond an access's two teams (docs/notifications.md, "What is notified"): policy
 * verdicts that need someone, persons who consume accesses themselves, a breaking change's
 * consumers, a read without an access, and a deleted team's channels. Each recipient is checked
 * where it really receives: a team's channel on a loopback receiver, a person's in-app list and
 * their e-mail on a real SMTP server.
 */
describe.each(DATABASES)("notification triggers (%s)", (kind) => {
  let t: TestServer;
  const receivers = new Receivers();
  const mail = new MailServer();
  let base: string;
  const keys: Record<string, string> = {};
  const people: Record<string, string> = {};

  beforeAll(async () => {
    base = await receivers.start();
    const smtpUrl = await mail.start();
    t = await startTestServer(kind, quickNotifications(smtpUrl));
    const members: Record<string, string> = { sales: "sam@example.com", marketing: "mia@example.com", risk: "rita@example.com", temp: "tom@example.com", leaving: "liv@example.com", done: "dan@example.com" };
    for (const [team, email] of Object.entries(members)) {
      expect((await t.api("PUT", `/api/teams/${team}`, { name: team, members: [{ emailAddress: email }] })).status).toBe(200);
      keys[team] = (await t.api("POST", "/api/api-keys", { displayName: `${team} key`, scope: "team", teamId: team })).body.key;
      const channelPath = team === "temp" ? "/flaky/temp" : `/ok/${team}`;
      expect((await t.api("PUT", `/api/teams/${team}/notification-channels/chat`, { name: "chat", type: "slack", endpoint: `${base}${channelPath}` })).status).toBe(200);
    }
    for (const email of [...Object.values(members), "uma@example.com"]) {
      await t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, t.organizationId, email, "member", "a long password"));
      people[email] = (await t.server.services.database.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;
    }
    expect((await t.api("PUT", "/api/datacontracts/orders-c", contract("1.0.0", ["id", "amount"]))).status).toBe(200);
    const server = { host: "db", port: 5432, database: "shop", schema: "public", table: "orders" };
    const products = await Promise.all([
      t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres", dataContractId: "orders-c", server }, { id: "pii", type: "postgres", containsPii: true }] }),
      t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing" } }),
      t.api("PUT", "/api/dataproducts/reports", { info: { title: "Reports", owner: "marketing" } }),
    ]);
    for (const res of products) expect(res.status, res.text).toBe(200);
    breaking = () => t.api("PUT", "/api/datacontracts/orders-c", contract("2.0.0", ["id"]));
  });
  afterAll(async () => {
    await t?.close();
    await receivers.close();
    await mail.close();
  });

  const contract = (version: string, columns: string[]) => ({
    dataContractSpecification: "0.9.3",
    info: { title: "Orders", version, owner: "sales" },
    schema: { type: "dbt", specification: `version: 2\nmodels:\n  - name: orders\n    columns:\n${columns.map((c) => `      - name: ${c}\n        data_type: text\n`).join("")}` },
  });
  let breaking: () => Promise<unknown>;
  let n = 0;
  const access = async (port: string, consumer: Record<string, string>, key: string, purpose = "Attribution of campaign revenue") => {
    const id = `t-${kind}-${++n}`;
    const res = await t.api("PUT", `/api/access/${id}`, { info: { purpose }, provider: { dataProductId: "orders", outputPortId: port }, consumer }, { key });
    expect(res.status, res.text).toBe(200);
    return id;
  };
  const messagesAt = (path: string) => receivers.at(path).map((r) => JSON.parse(r.body) as { text: string });
  const heard = (path: string, text: string) => eventually(() => messagesAt(path).some((m) => m.text.includes(text)), 15_000, `'${text}' at ${path}`);
  const inbox = async (email: string) =>
    (await t.server.services.database.db.selectFrom("notifications").select(["kind", "message"]).where("user_id", "=", people[email]).execute()).map((r) => ({ kind: r.kind, message: JSON.parse(r.message) }));
  const inboxHas = (email: string, kind: string, subject: string) => eventually(async () => (await inbox(email)).some((x) => x.kind === kind && x.message.resource.id === subject), 15_000, `${kind} for ${email}`);
  const policy = (id: string, rule: Record<string, unknown>) => t.api("PUT", `/api/policies/${id}`, { name: id, status: "Accepted", rule });

  it("an access a policy holds: the provider team and the teams the policy calls eligible, naming the policy", async () => {
    const put = await policy("two-for-pii", { condition: "port.containsPii", effect: "require-approvals", gates: ["access.request"], approvals: { count: 2, eligible: { providerTeam: true, teams: ["risk"] } } });
    expect(put.status, put.text).toBe(200);
    const id = await access("pii", { dataProductId: "campaigns" }, keys.marketing);
    await heard("/ok/risk", `marketing key requested access '${id}'`);
    await heard("/ok/sales", `access '${id}' to output port 'pii' of data product 'orders' for data product 'campaigns'. It stays requested until enough eligible people approved: 'two-for-pii' (2 approvals).`);
    await inboxHas("rita@example.com", "approvalsNeeded", id);
    await inboxHas("sam@example.com", "approvalsNeeded", id);
    // Held, it is not also announced as an ordinary request; the consumer hears nothing yet.
    expect((await inbox("sam@example.com")).some((x) => x.kind === "accessRequested" && x.message.resource.id === id)).toBe(false);
    expect(messagesAt("/ok/marketing").some((m) => m.text.includes(id))).toBe(false);

    // One approval of two: the approvers hear how many are still missing, with the comment.
    expect((await t.api("POST", `/api/access/${id}/approve`, { comment: "Fine by sales" }, { key: keys.sales })).status).toBe(200);
    await heard("/ok/risk", "1 of 2 approvals given");
    const second = receivers.at("/ok/risk").map((r) => JSON.parse(r.body)).find((m) => m.text.includes("1 of 2"));
    expect(JSON.stringify(second)).toContain("Fine by sales");
    expect(JSON.stringify(second)).toContain(`http://steward.test/access/${id}`);
    expect((await t.api("PUT", "/api/policies/two-for-pii", { name: "two-for-pii", status: "Deprecated", rule: put.body.rule })).status).toBe(200);
  });

  it("a warning: the writer's team hears of it beside the ordinary request", async () => {
    expect((await policy("say-why", { condition: "size(access.info.purpose) < 20", effect: "warn", gates: ["access.request"], message: "Say why." })).status).toBe(200);
    const id = await access("pg", { dataProductId: "campaigns" }, keys.marketing, "Short");
    await heard("/ok/marketing", `marketing key requested access '${id}' to output port 'pg' of data product 'orders' for data product 'campaigns'. The policy warned: 'say-why': Say why.`);
    await heard("/ok/sales", `marketing key requested access '${id}'`);
    expect(messagesAt("/ok/sales").some((m) => m.text.includes(id) && m.text.includes("warned"))).toBe(false);
    await inboxHas("mia@example.com", "policyWarning", id);
    expect((await t.api("PUT", "/api/policies/say-why", { name: "say-why", status: "Deprecated", rule: { condition: "size(access.info.purpose) < 20", effect: "warn", gates: ["access.request"] } })).status).toBe(200);

    // A document's warning goes to its owner team.
    const docRule = { condition: "true", effect: "warn", gates: ["contract.publish"], message: "Describe it." };
    expect((await policy("describe-it", docRule)).status).toBe(200);
    const doc = { dataContractSpecification: "0.9.3", info: { title: "Refunds", version: "1.0.0", owner: "sales", status: "active" }, schema: { type: "dbt", specification: "version: 2\nmodels:\n  - name: refunds\n    columns:\n      - name: id\n        data_type: text\n" } };
    const put = await t.api("PUT", "/api/datacontracts/refunds", doc, { key: keys.sales });
    expect(put.status, put.text).toBe(200);
    await heard("/ok/sales", "sales key created data contract 'refunds'. The policy warned: 'describe-it': Describe it.");
    await inboxHas("sam@example.com", "policyWarning", "refunds");
    expect((await t.api("PUT", "/api/policies/describe-it", { name: "describe-it", status: "Deprecated", rule: docRule })).status).toBe(200);
  });

  it("an access a person consumes: the person, in the web app and by e-mail", async () => {
    const id = await access("pg", { userId: "Uma@Example.com" }, t.key);
    // The provider approves: the person hears of it.
    expect((await t.api("POST", `/api/access/${id}/approve`, { comment: "Welcome" }, { key: keys.sales })).status).toBe(200);
    await inboxHas("uma@example.com", "accessApproved", id);
    const approved = (await inbox("uma@example.com")).find((x) => x.kind === "accessApproved")!.message;
    expect(approved.text).toBe(`sales key approved access '${id}' to output port 'pg' of data product 'orders' for 'Uma@Example.com'.`);
    expect(approved.comment).toBe("Welcome");
    await eventually(() => mail.messages.some((m) => m.to.includes("uma@example.com") && m.raw.includes(id)), 15_000, "the person's e-mail");
  });

  it("a breaking change stored: the consuming teams and the persons who consume the contract", async () => {
    const id = await access("pg", { dataProductId: "campaigns" }, keys.marketing);
    expect((await t.api("POST", `/api/access/${id}/approve`, undefined, { key: keys.sales })).status).toBe(200);
    await breaking();
    await heard("/ok/marketing", "stored a breaking change to data contract 'orders-c'");
    await inboxHas("uma@example.com", "breakingChange", "orders-c");
    await inboxHas("mia@example.com", "breakingChange", "orders-c");
    // Not the owner: it made the change.
    expect(messagesAt("/ok/sales").some((m) => m.text.includes("breaking change"))).toBe(false);
  });

  it("a breaking change's audience: accesses approved and not ended, a canceled one until its end, not one past its end", async () => {
    const leaving = await access("pg", { teamId: "leaving" }, keys.leaving);
    const done = await access("pg", { teamId: "done" }, keys.done);
    for (const id of [leaving, done]) expect((await t.api("POST", `/api/access/${id}/approve`, undefined, { key: keys.sales })).status).toBe(200);
    // Canceled, its end a month ahead: still consuming, so still broken by the change.
    const ahead = new Date(Date.now() + 30 * 24 * 3600_000).toISOString();
    const canceled = await t.api("POST", `/api/access/${leaving}/cancel`, { endDate: ahead }, { key: keys.leaving });
    expect(canceled.status, canceled.text).toBe(200);
    // Never canceled, but past its end: nothing of it is consumed any more.
    await t.server.services.database.db.updateTable("accesses").set({ end_at: "2020-01-01T00:00:00.000Z" }).where("id", "=", done).execute();
    const put = await t.api("PUT", "/api/datacontracts/orders-c", contract("3.0.0", ["key"]));
    expect(put.status, put.text).toBe(200);
    await heard("/ok/leaving", "stored a breaking change to data contract 'orders-c'");
    await inboxHas("liv@example.com", "breakingChange", "orders-c");
    // Both were derived from the same event, in one transaction: the ended access's team got nothing queued.
    const db = t.server.services.database.db;
    expect(await db.selectFrom("notification_deliveries").select("id").where("team_id", "=", "done").where("kind", "=", "breakingChange").execute()).toEqual([]);
    expect((await inbox("dan@example.com")).some((x) => x.kind === "breakingChange")).toBe(false);
  });

  it("a read without an access: the provider team, naming the run and who reported it", async () => {
    const res = await t.api("POST", "/api/v1/lineage?dataProductId=reports", dbtEvent("0190a3c4-1f2e-7d00-8000-00000000a001"), { key: keys.marketing });
    expect(res.status, res.text).toBe(200);
    expect(res.body.violations).toBe(1);
    await heard("/ok/sales", "marketing key reported a read without an active access of data product 'orders'. Run '0190a3c4-1f2e-7d00-8000-00000000a001' of job 'dbt/reporting.marts.daily_revenue'");
    await inboxHas("sam@example.com", "accessViolation", "orders");
    const message = (await inbox("sam@example.com")).find((x) => x.kind === "accessViolation")!.message;
    expect(message.link).toBe("http://steward.test/dataproducts/orders");
  });

  it("a team deleted: its channels go with their logs, and nothing more is delivered to them", async () => {
    receivers.failures = 1_000_000;
    const id = await access("pg", { teamId: "temp" }, keys.temp);
    expect((await t.api("POST", `/api/access/${id}/reject`, { comment: "No" }, { key: keys.sales })).status).toBe(200);
    // The channel answers 500 each time: the delivery keeps being retried.
    await eventually(() => receivers.at("/flaky/temp").length >= 2, 15_000, "retries to the team's channel");
    expect((await t.api("DELETE", `/api/api-keys/${(await t.api("GET", "/api/api-keys")).body.find((k: any) => k.displayName === "temp key").id}`)).status).toBeLessThan(300);
    const deleted = await t.api("DELETE", "/api/teams/temp");
    expect(deleted.status, deleted.text).toBe(204);
    const db = t.server.services.database.db;
    expect(await db.selectFrom("notification_channels").select("id").where("team_id", "=", "temp").execute()).toEqual([]);
    expect(await db.selectFrom("notification_deliveries").select("id").where("team_id", "=", "temp").execute()).toEqual([]);
    const seen = receivers.at("/flaky/temp").length;
    // Several retry periods later nothing more arrived (one attempt may have been under way).
    await new Promise((r) => setTimeout(r, 600));
    expect(receivers.at("/flaky/temp").length).toBeLessThanOrEqual(seen + 1);
    // The same name made again starts without the old channels.
    expect((await t.api("PUT", "/api/teams/temp", { name: "temp" })).status).toBe(200);
    expect((await t.api("GET", "/api/teams/temp/notification-channels")).body).toEqual([]);
  });
});
