import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotificationChannelService } from "../../src/modules/notification-channels/service.js";
import { systemClock } from "../../src/platform/clock.js";
import { DATABASES } from "../helpers/databases.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";
import { eventually, MailServer, Receivers } from "./peers.js";

/** A browser-like client that keeps the session cookie and sends the CSRF token. */
class Person {
  cookie?: string;
  csrf?: string;
  constructor(private readonly url: string) {}
  async call(method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    if (this.csrf) headers["x-csrf-token"] = this.csrf;
    const res = await request(this.url, method, path, body, { headers });
    const setCookie = res.headers.get("set-cookie");
    if (setCookie) this.cookie = setCookie.split(";")[0];
    if (res.body && typeof res.body === "object" && typeof (res.body as any).csrfToken === "string") this.csrf = (res.body as any).csrfToken;
    return res;
  }
}

describe.each(DATABASES)("notifications (%s)", (kind) => {
  let t: TestServer;
  const receivers = new Receivers();
  const mail = new MailServer();
  let base: string;
  const keys: Record<string, string> = {};
  const sam = () => new Person(t.url);
  let samSession: Person;
  let miaSession: Person;

  beforeAll(async () => {
    base = await receivers.start();
    const smtpUrl = await mail.start();
    t = await startTestServer(kind, {
      outbound: { allowPrivateNetworks: true, allowedHosts: [] },
      notify: { pollMs: 20, retryBaseMs: 100, timeoutMs: 800, leaseMs: 5000 },
      smtpUrl,
      smtpFrom: "steward@example.com",
    });
    await t.api("PUT", "/api/teams/sales", { name: "Sales", members: [{ emailAddress: "sam@example.com" }] });
    await t.api("PUT", "/api/teams/marketing", { name: "Marketing", members: [{ emailAddress: "Mia@Example.com" }] });
    for (const team of ["sales", "marketing"]) keys[team] = (await t.api("POST", "/api/api-keys", { displayName: `${team} key`, scope: "team", teamId: team })).body.key;
    for (const email of ["sam@example.com", "mia@example.com"]) {
      await t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, t.organizationId, email, "member", "a long password"));
    }
    samSession = sam();
    expect((await samSession.call("POST", "/auth/sign-in", { email: "sam@example.com", password: "a long password" })).status).toBe(200);
    miaSession = new Person(t.url);
    expect((await miaSession.call("POST", "/auth/sign-in", { email: "mia@example.com", password: "a long password" })).status).toBe(200);
    await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres" }] });
    await t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing" } });
  });
  afterAll(async () => {
    await t?.close();
    await receivers.close();
    await mail.close();
  });

  const channel = (team: string, id: string, body: Record<string, unknown>, key = keys[team]) => t.api("PUT", `/api/teams/${team}/notification-channels/${id}`, { name: id, ...body }, { key });
  const deliveries = async (team: string, id: string) => (await t.api("GET", `/api/teams/${team}/notification-channels/${id}/deliveries`)).body as any[];
  let n = 0;
  const requestAccess = async (key = keys.marketing) => {
    const id = `acc-${kind}-${++n}`;
    const res = await t.api("PUT", `/api/access/${id}`, { info: { purpose: "Attribution" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { dataProductId: "campaigns" } }, { key });
    expect(res.status).toBe(200);
    return id;
  };

  describe("team channels", () => {
    let webhookSecret: string;

    it("are managed at the reference paths by the team, a webhook's secret shown once", async () => {
      expect((await channel("sales", "slack", { type: "slack", endpoint: `${base}/ok/slack`, enabled: true })).status).toBe(200);
      const hook = await channel("marketing", "hook", { type: "webhook", endpoint: `${base}/hook/marketing`, enabled: true });
      expect(hook.status).toBe(200);
      expect(hook.headers.get("cache-control")).toBe("no-store");
      webhookSecret = hook.body.secret;
      expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      receivers.secrets.set("/hook/marketing", webhookSecret);
      const read = await t.api("GET", "/api/teams/marketing/notification-channels/hook", undefined, { key: keys.marketing });
      expect(read.body).toEqual({ id: "hook", name: "hook", type: "webhook", endpoint: `${base}/hook/marketing`, enabled: true });
      // Changing it keeps the secret and never answers it again.
      const again = await channel("marketing", "hook", { type: "webhook", endpoint: `${base}/hook/marketing` });
      expect(again.body.secret).toBeUndefined();
      expect((await channel("marketing", "teams", { type: "teams", endpoint: `${base}/ok/teams` })).status).toBe(200);
      expect((await channel("marketing", "chat", { type: "googlechat", endpoint: `${base}/ok/chat` })).status).toBe(200);
      expect((await channel("marketing", "mail", { type: "email", addresses: ["Team-Marketing@example.com"] })).body.addresses).toEqual(["team-marketing@example.com"]);
      const list = await t.api("GET", "/api/teams/marketing/notification-channels", undefined, { key: keys.marketing });
      expect(list.body.map((c: any) => c.id)).toEqual(["chat", "hook", "mail", "teams"]);
      expect(JSON.stringify(list.body)).not.toContain(webhookSecret);
    });

    it("refuses other teams, unknown teams and incomplete channels with problems, changing nothing", async () => {
      const foreign = await channel("sales", "x", { type: "slack", endpoint: `${base}/ok/x` }, keys.marketing);
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get("content-type")).toContain("application/problem+json");
      expect((await t.api("GET", "/api/teams/sales/notification-channels", undefined, { key: keys.marketing })).status).toBe(403);
      expect((await t.api("GET", "/api/teams/nobody/notification-channels")).status).toBe(404);
      expect((await t.api("GET", "/api/teams/sales/notification-channels/none")).status).toBe(404);
      const noEndpoint = await channel("sales", "x", { type: "slack" });
      expect(noEndpoint.status).toBe(422);
      expect(noEndpoint.body.violations).toEqual([{ field: "endpoint", message: "is required for type slack" }]);
      expect((await channel("sales", "x", { type: "email", addresses: ["not an address"] })).status).toBe(422);
      expect((await channel("sales", "x", { type: "pager", endpoint: `${base}/ok/x` })).status).toBe(422);
      expect((await channel("sales", "x", { type: "slack", endpoint: "file:///etc/passwd" })).status).toBe(422);
      expect((await channel("sales", "y", { type: "slack", endpoint: `${base}/ok/y` }, keys.sales)).status).toBe(200);
      expect((await t.api("GET", "/api/teams/sales/notification-channels")).body.map((c: any) => c.id)).toEqual(["slack", "y"]);
      expect((await t.api("DELETE", "/api/teams/sales/notification-channels/y", undefined, { key: keys.sales })).status).toBe(200);
      expect((await t.api("GET", "/api/teams/sales/notification-channels/y")).status).toBe(404);
    });

    it("refuses an endpoint on a private address unless the operator allows it", async () => {
      const strict = new NotificationChannelService(t.server.services.database, systemClock, { allowPrivateNetworks: false, allowedHosts: [] });
      const principal = { organizationId: t.organizationId, scope: "organization" as const, teamIds: [] };
      for (const endpoint of [`${base}/ok/z`, "http://169.254.169.254/", "http://[::1]/", "http://10.0.0.1/"]) {
        await expect(strict.put(principal, "sales", "z", { name: "z", type: "slack", endpoint })).rejects.toMatchObject({ status: 422 });
      }
      const named = new NotificationChannelService(t.server.services.database, systemClock, { allowPrivateNetworks: false, allowedHosts: [new URL(base).host] });
      expect((await named.put(principal, "sales", "z", { name: "z", type: "slack", endpoint: `${base}/ok/z` })).created).toBe(true);
      await named.delete(principal, "sales", "z");
    });

    it("access requested: the provider team's channel and people; approved: the consumer's, each formatted for its target", async () => {
      const id = await requestAccess();
      await eventually(() => receivers.at("/ok/slack").length === 1, 15_000, "the Slack message");
      const slack = JSON.parse(receivers.at("/ok/slack")[0].body);
      expect(slack.blocks[1].text.text).toBe(`marketing key requested access '${id}' to output port 'pg' of data product 'orders' for data product 'campaigns'.`);
      expect(slack.blocks.at(-1).elements[0].url).toBe(`http://steward.test/access/${id}`);
      // Not the consumer's channels: they hear of the decision.
      expect(receivers.at("/hook/marketing")).toHaveLength(0);

      expect((await t.api("POST", `/api/access/${id}/approve`, { comment: "Go <ahead>" }, { key: keys.sales })).status).toBe(200);
      await eventually(() => receivers.at("/hook/marketing").length === 1 && receivers.at("/ok/teams").length === 1 && receivers.at("/ok/chat").length === 1, 15_000, "the consumer's channels");
      const hook = receivers.at("/hook/marketing")[0];
      expect(hook.signatureValid).toBe(true);
      const event = JSON.parse(hook.body);
      expect(event).toMatchObject({ specversion: "1.0", type: "com.service.events.AccessApprovedEvent", subject: id, data: { id } });
      expect(hook.headers["webhook-id"]).toMatch(/^[0-9a-f-]{36}$/);
      const card = JSON.parse(receivers.at("/ok/teams")[0].body).attachments[0].content;
      expect(card.body[2].facts[0]).toEqual({ title: "Comment", value: "Go <ahead>" });
      expect(JSON.parse(receivers.at("/ok/chat")[0].body).cardsV2[0].card.header.title).toBe("Access approved: orders");
      // A tampered body fails the independent check.
      expect((await import("./peers.js")).verify(webhookSecret, hook.headers, hook.body.replace(id, "other"))).toBe(false);

      // The team's e-mail channel and the people concerned, through the SMTP server.
      const approvedMail = (await eventually(() => mail.messages.find((m) => m.to.includes("team-marketing@example.com")), 15_000, "the channel's mail"))!;
      expect(approvedMail.from).toBe("steward@example.com");
      expect(approvedMail.raw).toMatch(/^Subject: \[Steward\] Access approved: orders/m);
      expect(approvedMail.raw).toContain("text/plain");
      expect(approvedMail.raw).toContain("text/html");
      const samMail = (await eventually(() => mail.messages.find((m) => m.to.includes("sam@example.com")), 15_000, "sam's mail"))!;
      expect(samMail.raw).toMatch(/Subject: \[Steward\] Access requested: orders/);
      await eventually(() => mail.messages.find((m) => m.to.includes("mia@example.com")), 15_000, "mia's mail");

      const log = await deliveries("marketing", "hook");
      expect(log).toEqual([expect.objectContaining({ eventId: event.id, kind: "accessApproved", status: "delivered", attempts: 1, lastStatusCode: 204, lastError: null, nextAttemptAt: null })]);
      expect(log[0].id).toBe(hook.headers["webhook-id"]);
    });

    it("in the web app: each person's notifications, unread count, mark read, and kinds turned off", async () => {
      const samList = await eventually(async () => {
        const res = await samSession.call("GET", "/api/notifications");
        return res.body.length >= 1 ? res.body : undefined;
      });
      expect(samList[0]).toMatchObject({ kind: "accessRequested", actor: "marketing key", read: false, link: expect.stringMatching(/^http:\/\/steward\.test\/access\//) });
      expect((await samSession.call("GET", "/api/notifications/unread-count")).body).toEqual({ unread: samList.length });
      const mia = (await miaSession.call("GET", "/api/notifications")).body;
      expect(mia.map((x: any) => x.kind)).toEqual(["accessApproved"]);
      expect(mia[0].comment).toBe("Go <ahead>");
      expect((await samSession.call("POST", "/api/notifications/read", { ids: [samList[0].id, mia[0].id] })).body).toEqual({ marked: 1 });
      expect((await miaSession.call("GET", "/api/notifications/unread-count")).body).toEqual({ unread: 1 });
      expect((await miaSession.call("POST", "/api/notifications/read", {})).body).toEqual({ marked: 1 });
      expect((await miaSession.call("GET", "/api/notifications?unread=true")).body).toEqual([]);
      // API keys have no notifications of their own.
      expect((await t.api("GET", "/api/notifications")).status).toBe(403);

      const settings = await samSession.call("PUT", "/api/notifications/settings", { disabledKinds: ["accessRequested"] });
      expect(settings.body.disabledKinds).toEqual(["accessRequested"]);
      expect((await samSession.call("PUT", "/api/notifications/settings", { disabledKinds: ["nonsense"] })).status).toBe(422);
      const before = (await samSession.call("GET", "/api/notifications")).body.length;
      const mailsBefore = mail.messages.filter((m) => m.to.includes("sam@example.com")).length;
      const id = await requestAccess();
      await eventually(() => receivers.at("/ok/slack").some((r) => r.body.includes(id)), 15_000, "the channel still told");
      await t.server.services.notificationEngine.pass();
      expect((await samSession.call("GET", "/api/notifications")).body.length).toBe(before);
      expect(mail.messages.filter((m) => m.to.includes("sam@example.com")).length).toBe(mailsBefore);
      await samSession.call("PUT", "/api/notifications/settings", { disabledKinds: [] });
    });

    it("delivers each channel's notifications in event order", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await requestAccess());
      for (const id of ids) await t.api("POST", `/api/access/${id}/reject`, { comment: `no ${id}` }, { key: keys.sales });
      await eventually(() => ids.every((id) => receivers.at("/hook/marketing").some((r) => r.body.includes(`"subject":"${id}"`))), 20_000, "five rejections");
      const subjects = receivers.at("/hook/marketing").map((r) => JSON.parse(r.body)).filter((e) => e.type.endsWith("AccessRejectedEvent")).map((e) => e.subject);
      expect(subjects).toEqual(ids);
      expect(receivers.at("/hook/marketing").every((r) => r.signatureValid)).toBe(true);
    });

    it("retries a receiver that fails with growing delays until it answers, and records every attempt", async () => {
      receivers.failures = 2;
      await channel("sales", "flaky", { type: "slack", endpoint: `${base}/flaky/sales` });
      const id = await requestAccess();
      const log = await eventually(async () => {
        const rows = await deliveries("sales", "flaky");
        return rows[0]?.status === "delivered" ? rows : undefined;
      }, 20_000, "the flaky delivery");
      expect(log![0]).toMatchObject({ attempts: 3, lastStatusCode: 200, lastError: null });
      const times = receivers.at("/flaky/sales").map((r) => r.at);
      expect(times).toHaveLength(3);
      // NOTIFY_RETRY_BASE_MS is 100 here: 100 ms after the first failure, 200 ms after the second.
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(90);
      expect(times[2] - times[1]).toBeGreaterThanOrEqual(190);
      expect(JSON.parse(receivers.at("/flaky/sales")[2].body).blocks[1].text.text).toContain(id);
    });

    it("a receiver that never answers times out without holding up other channels; a redirect is not followed", async () => {
      await channel("sales", "hang", { type: "slack", endpoint: `${base}/hang/sales` });
      await channel("sales", "redirect", { type: "webhook", endpoint: `${base}/redirect/sales` });
      const id = await requestAccess();
      await eventually(() => receivers.at("/ok/slack").some((r) => r.body.includes(id)), 5_000, "the healthy channel");
      const redirect = await eventually(async () => (await deliveries("sales", "redirect"))[0]?.attempts >= 1 && (await deliveries("sales", "redirect"))[0]);
      expect(redirect).toMatchObject({ status: "pending", lastStatusCode: 302, lastError: "The receiver answered 302. Redirects are not followed." });
      const hang = await eventually(async () => {
        const rows = await deliveries("sales", "hang");
        return rows[0]?.attempts >= 1 ? rows[0] : undefined;
      }, 10_000, "the timeout");
      expect(hang).toMatchObject({ status: "pending", lastStatusCode: null });
      expect(hang.lastError).toMatch(/within 800 ms|within 400 ms/);
      // The API still answers; how little a dead receiver slows it is measured by the benchmark
      // (bench/notifications.bench.ts), not timed here.
      expect((await t.api("GET", "/api/teams")).status).toBe(200);
      for (const c of ["hang", "redirect", "flaky"]) await t.api("DELETE", `/api/teams/sales/notification-channels/${c}`);
    });

    it("redelivers on request with the same webhook-id", async () => {
      const [latest] = await deliveries("marketing", "hook");
      const before = receivers.at("/hook/marketing").filter((r) => r.headers["webhook-id"] === latest.id).length;
      const res = await t.api("POST", `/api/teams/marketing/notification-channels/hook/deliveries/${latest.id}/redeliver`, undefined, { key: keys.marketing });
      expect(res.status).toBe(202);
      await eventually(() => receivers.at("/hook/marketing").filter((r) => r.headers["webhook-id"] === latest.id).length === before + 1, 10_000, "the redelivery");
      expect(receivers.at("/hook/marketing").filter((r) => r.headers["webhook-id"] === latest.id).every((r) => r.signatureValid)).toBe(true);
      expect((await t.api("POST", "/api/teams/marketing/notification-channels/hook/deliveries/nope/redeliver")).status).toBe(404);
    });

    it("provisioning failed: both sides", async () => {
      const id = await requestAccess();
      await t.api("POST", `/api/access/${id}/approve`, undefined, { key: keys.sales });
      await t.api("POST", `/api/access/${id}/provisioning/provisioning-failed`);
      await eventually(() => receivers.at("/ok/slack").some((r) => r.body.includes("Provisioning failed")) && receivers.at("/hook/marketing").some((r) => r.body.includes("AccessProvisioningFailedEvent") && r.body.includes(id)), 15_000, "both sides");
    });

    it("a breaking change stored: the consumers of the contract's approved accesses", async () => {
      const contract = (version: string, columns: string[]) => ({
        dataContractSpecification: "0.9.3",
        info: { title: "Orders", version, owner: "sales" },
        schema: { type: "dbt", specification: `version: 2\nmodels:\n  - name: orders\n    columns:\n${columns.map((c) => `      - name: ${c}\n        data_type: text\n`).join("")}` },
      });
      await t.api("PUT", "/api/datacontracts/orders-c", contract("1.0.0", ["id", "amount"]));
      await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres", dataContractId: "orders-c" }] });
      const id = await requestAccess();
      await t.api("POST", `/api/access/${id}/approve`, undefined, { key: keys.sales });
      expect((await t.api("PUT", "/api/datacontracts/orders-c", contract("2.0.0", ["id"]))).status).toBe(200);
      await eventually(() => receivers.at("/ok/teams").some((r) => r.body.includes("Breaking change stored: orders-c")), 15_000, "the breaking change");
      const hook = receivers.at("/hook/marketing").map((r) => JSON.parse(r.body)).find((e) => e.type.endsWith("DataContractUpdatedEvent"));
      expect(hook).toMatchObject({ subject: "orders-c", data: { breaking: true } });
    });

    it("keeps no secret in any delivery record or message", async () => {
      const rows = await t.server.services.database.db.selectFrom("notification_deliveries").selectAll().execute();
      const dump = JSON.stringify(rows) + JSON.stringify(await t.server.services.database.db.selectFrom("notifications").selectAll().execute());
      expect(rows.length).toBeGreaterThan(10);
      expect(dump).not.toContain(webhookSecret.slice(6));
      expect(dump).not.toContain(keys.marketing);
      expect(dump).not.toContain("whsec_");
    });
  });
});

describe("without SMTP", () => {
  it("queues no e-mail, and people still get their in-app notifications", async () => {
    const lines: string[] = [];
    const t = await startTestServer("sqlite", { outbound: { allowPrivateNetworks: true, allowedHosts: [] }, notify: { pollMs: 20 } });
    try {
      expect(t.server.services.notificationEngine.mailer).toBeUndefined();
      await t.api("PUT", "/api/teams/sales", { name: "Sales", members: [{ emailAddress: "sam@example.com" }] });
      await t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, t.organizationId, "sam@example.com", "member", "a long password"));
      await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres" }] });
      await t.api("PUT", "/api/access/a", { info: { purpose: "p" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "sales" } });
      await t.server.services.notificationEngine.pass();
      const notifications = await t.server.services.database.db.selectFrom("notifications").selectAll().execute();
      // One team on both sides: the request approves itself, and the team hears of both.
      expect(notifications.map((x) => x.kind)).toEqual(["accessRequested", "accessApproved"]);
      expect(await t.server.services.database.db.selectFrom("notification_deliveries").selectAll().execute()).toEqual([]);
      lines.push("checked");
    } finally {
      await t.close();
    }
    expect(lines).toEqual(["checked"]);
  });
});
