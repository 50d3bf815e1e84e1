import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { eventually, MailServer, quickNotifications, Receivers } from "./peers.js";

/**
 * A breaking change only proposed (docs/versions.md, "Telling consumers"): with `notify=true` the
 * comparison appends one DataContractChangeProposedEvent, and the consumers of the accesses it
 * would break hear of it on their channel, in the web app and by e-mail; without the flag, from a
 * principal that may not change the contract, for a change that breaks nothing, or repeated within
 * a day, nothing is appended.
 */
describe.each(DATABASES)("a proposed breaking change (%s)", (kind) => {
  let t: TestServer;
  const receivers = new Receivers();
  const mail = new MailServer();
  const keys: Record<string, string> = {};
  let mia = "";

  const contract = (version: string, columns: string[]) => ({
    dataContractSpecification: "0.9.3",
    info: { title: "Orders", version, owner: "sales" },
    schema: { type: "dbt", specification: `version: 2\nmodels:\n  - name: orders\n    columns:\n${columns.map((c) => `      - name: ${c}\n        data_type: text\n`).join("")}` },
  });
  const proposals = async () =>
    (await t.server.services.database.db.selectFrom("events").select(["data", "principal"]).where("kind", "=", "DataContractChangeProposedEvent").execute()).map((e) => ({
      ...e,
      data: JSON.parse(e.data) as Record<string, any>,
    }));
  const propose = (doc: unknown, query = "?notify=true", key = keys.sales) => t.api("POST", `/api/datacontracts/orders-c/changes${query}`, doc, { key });

  beforeAll(async () => {
    const base = await receivers.start();
    const smtpUrl = await mail.start();
    t = await startTestServer(kind, { ...quickNotifications(smtpUrl), appUrl: "https://steward.example.org" });
    for (const [team, email] of Object.entries({ sales: "sam@example.com", marketing: "mia@example.com" })) {
      expect((await t.api("PUT", `/api/teams/${team}`, { name: team, members: [{ emailAddress: email }] })).status).toBe(200);
      keys[team] = (await t.api("POST", "/api/api-keys", { displayName: `${team} key`, scope: "team", teamId: team })).body.key;
      expect((await t.api("PUT", `/api/teams/${team}/notification-channels/chat`, { name: "chat", type: "slack", endpoint: `${base}/ok/${team}` })).status).toBe(200);
      await t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, t.organizationId, email, "member", "a long password"));
    }
    mia = (await t.server.services.database.db.selectFrom("users").select("id").where("email", "=", "mia@example.com").executeTakeFirstOrThrow()).id;
    expect((await t.api("PUT", "/api/datacontracts/orders-c", contract("1.0.0", ["id", "amount"]))).status).toBe(200);
    const port = { id: "pg", type: "postgres", dataContractId: "orders-c", server: { host: "db", port: 5432, database: "shop", schema: "public", table: "orders" } };
    expect((await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [port] })).status).toBe(200);
    expect((await t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing" } })).status).toBe(200);
    const access = await t.api("PUT", "/api/access/campaigns-orders", { info: { purpose: "Attribution" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { dataProductId: "campaigns" } }, { key: keys.marketing });
    expect(access.status, access.text).toBe(200);
    expect((await t.api("POST", "/api/access/campaigns-orders/approve", undefined, { key: keys.sales })).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await receivers.close();
    await mail.close();
  });

  it("without the flag, compares as before and appends nothing", async () => {
    const res = await propose(contract("1.1.0", ["id"]), "");
    expect(res.status, res.text).toBe(200);
    expect(res.body.breaking).toBe(true);
    expect(res.headers.get("steward-notified")).toBeNull();
    expect(await proposals()).toEqual([]);
  });

  it("refuses a principal that may not change the contract with 403, and appends nothing", async () => {
    const res = await propose(contract("1.1.0", ["id"]), "?notify=true", keys.marketing);
    expect(res.status, res.text).toBe(403);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(await proposals()).toEqual([]);
  });

  it("answers a flag that is neither true nor false with a 400 problem, and appends nothing", async () => {
    for (const query of ["?notify=yes", "?notify=", `?notify=${"t".repeat(5000)}`]) {
      const res = await propose(contract("1.1.0", ["id"]), query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
    expect(await proposals()).toEqual([]);
  });

  it("appends nothing for a proposal that breaks nothing", async () => {
    const res = await propose(contract("1.1.0", ["id", "amount", "currency"]));
    expect(res.status, res.text).toBe(200);
    expect(res.body.breaking).toBe(false);
    expect(res.headers.get("steward-notified")).toBe("0");
    expect(await proposals()).toEqual([]);
  });

  it("with the flag, appends one event and tells the consumer team and its members, naming who proposed, the changes and the contract", async () => {
    const res = await propose(contract("2.0.0", ["id"]));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ from: "current", to: "proposed", breaking: true });
    expect(res.headers.get("steward-notified")).toBe("1");
    const [event, ...more] = await proposals();
    expect(more).toEqual([]);
    expect(event.data).toMatchObject({
      id: "orders-c",
      proposal: { version: "2.0.0", breakingCount: 1, affectedAccesses: ["campaigns-orders"], affectedCount: 1, breakingChanges: [{ path: "orders.amount", change: "field-removed" }] },
    });
    expect(event.data.proposal.hash).toMatch(/^[0-9a-f]{64}$/);
    // Nothing was stored: the contract is still its first version.
    expect((await t.api("GET", "/api/datacontracts/orders-c/versions")).body).toHaveLength(1);

    const text = "sales key proposed a breaking change to data contract 'orders-c'. Approved accesses of yours depend on it. Proposed as version 2.0.0, not stored yet: 1 breaking change (orders.amount:";
    const texts = () => receivers.at("/ok/marketing").map((r) => (JSON.parse(r.body) as { text: string }).text);
    await eventually(() => texts().some((m) => m.includes(text)), 15_000, "the consumer team's channel").catch((error) => {
      throw new Error(`${error}: ${JSON.stringify(texts())}`);
    });
    await eventually(
      async () =>
        (await t.server.services.database.db.selectFrom("notifications").select(["kind", "message"]).where("user_id", "=", mia).execute()).some(
          (n) => n.kind === "breakingChangeProposed" && JSON.parse(n.message).link === "https://steward.example.org/datacontracts/orders-c",
        ),
      15_000,
      "the member's in-app notification",
    );
    await eventually(() => mail.messages.some((m) => m.to.includes("mia@example.com") && m.raw.includes("Breaking change proposed")), 15_000, "the member's e-mail");
    // The owner team proposed it; it is no consumer.
    expect(receivers.at("/ok/sales").some((r) => r.body.includes("proposed a breaking change"))).toBe(false);
  });

  it("appends nothing for the same proposed document again, its members in another order", async () => {
    const { schema, info, dataContractSpecification } = contract("2.0.0", ["id"]);
    const res = await propose({ schema, info: { owner: info.owner, version: info.version, title: info.title }, dataContractSpecification });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("steward-notified")).toBe("0");
    expect(res.headers.get("steward-notified-earlier")).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await proposals()).toHaveLength(1);
    // Another proposal is told again.
    const other = await propose(contract("2.0.0", ["key"]));
    expect(other.headers.get("steward-notified")).toBe("1");
    expect(await proposals()).toHaveLength(2);
    // The same new proposal three times at once: one event.
    const together = await Promise.all([1, 2, 3].map(() => propose(contract("3.0.0", ["id"]))));
    expect(together.map((r) => r.headers.get("steward-notified")).sort()).toEqual(["0", "0", "1"]);
    expect(await proposals()).toHaveLength(3);
  });
});
