import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { startTestServer, type TestServer } from "./helpers/server.js";

/**
 * Every route of the API against every kind of key (docs/security.md, "Scopes"): which answer 403
 * and which do not. The operations come from the API's own OpenAPI description, so a route added
 * later is in the table without anyone remembering to add it; what each kind of key may do is
 * written out here, independently of the policy code.
 */

type Kind = "organization" | "organization_read" | "team_read" | "connector" | "owner_user" | "owner_user_read" | "member_user_read";

interface Op {
  method: string;
  path: string;
  operationId: string;
}

const READ_POSTS = new Set(["validateSchema", "previewDataContractChanges"]);
const KEYS = new Set(["getApiKeys", "getApiKey"]);
const MEMBERS = new Set(["getMembers", "getOrganizationMembers"]);
/** A person's own notifications: only keys bound to a person have any (docs/notifications.md). */
const PERSONAL = new Set(["getNotifications", "getUnreadNotificationCount", "markNotificationsRead", "getNotificationSettings", "putNotificationSettings"]);
/** Sign-in, SCIM and team-role administration: the organization's own (docs/identity.md). */
const ADMINISTRATION = (op: Op) => (op.path.startsWith("/api/scim/") && !SCIM_DISCOVERY.test(op.path)) || op.path.startsWith("/api/settings/");
/** What the SCIM service offers, which any key may read. */
const SCIM_DISCOVERY = /^\/api\/scim\/v2\/(ServiceProviderConfig|ResourceTypes|Schemas)/;
const CONNECTOR_READS = new Set(["getConnectors", "getConnector"]);
const CONNECTOR_WRITES = new Set(["putConnector", "putAccessProvisioning"]);
const isProvisioningReport = (op: Op) => op.method === "POST" && /^\/api\/access\/\{id\}\/provisioning\/[a-z-]+$/.test(op.path);
const isRead = (op: Op) => op.method === "GET" || READ_POSTS.has(op.operationId);

/** Whether a key of this kind gets past authorization (anything but 403) on an operation over ids that do not exist. */
function expectedAllowed(kind: Kind, op: Op): boolean {
  if (PERSONAL.has(op.operationId)) return kind === "owner_user" || ((kind === "owner_user_read" || kind === "member_user_read") && isRead(op));
  if (ADMINISTRATION(op)) return kind === "organization" || kind === "owner_user";
  switch (kind) {
    case "organization":
    case "owner_user":
      return true;
    case "organization_read":
    case "owner_user_read":
      return isRead(op) && !KEYS.has(op.operationId);
    case "team_read":
    case "member_user_read":
      return isRead(op) && !KEYS.has(op.operationId) && !MEMBERS.has(op.operationId) && !CONNECTOR_READS.has(op.operationId);
    case "connector":
      if (KEYS.has(op.operationId) || MEMBERS.has(op.operationId)) return false;
      return isRead(op) || CONNECTOR_WRITES.has(op.operationId) || isProvisioningReport(op);
  }
}

const PARAMS: Record<string, string> = { id: "no-such-id", n: "1", email: "nobody@example.com", tagId: "no-such-tag" };

describe.each(DATABASES)("scopes on every route (%s)", (kind) => {
  let t: TestServer;
  let ops: Op[] = [];
  const keys = {} as Record<Kind | "team" | "member_user", string>;

  beforeAll(async () => {
    t = await startTestServer(kind);
    const spec = (await t.api("GET", "/api/openapi.json")).body as { paths: Record<string, Record<string, { operationId: string }>> };
    ops = Object.entries(spec.paths)
      .filter(([path]) => path.startsWith("/api/"))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, o]) => ({ method: method.toUpperCase(), path, operationId: o.operationId })));
    const people = t.server.services.people;
    await t.server.services.database.db.transaction().execute(async (trx) => {
      await people.addMember(trx, t.organizationId, "olga@example.com", "owner", "a long enough password 1");
      await people.addMember(trx, t.organizationId, "mia@example.com", "member", "a long enough password 2");
    });
    await t.api("PUT", "/api/teams/sales", { name: "Sales", members: [{ emailAddress: "mia@example.com" }] });
    await t.api("PUT", "/api/teams/marketing", { name: "Marketing" });
    const create = async (body: Record<string, unknown>) => {
      const res = await t.api("POST", "/api/api-keys", body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as { key: string; userId: string | null; scope: string };
    };
    keys.organization = t.key;
    keys.organization_read = (await create({ scope: "organization_read" })).key;
    keys.team = (await create({ scope: "team", teamId: "sales" })).key;
    keys.team_read = (await create({ scope: "team_read", teamId: "sales" })).key;
    keys.connector = (await create({ scope: "connector" })).key;
    keys.owner_user = (await create({ scope: "user", userId: "olga@example.com" })).key;
    keys.owner_user_read = (await create({ scope: "user_read", userId: "OLGA@example.com" })).key;
    keys.member_user = (await create({ scope: "user", userId: "mia@example.com" })).key;
    keys.member_user_read = (await create({ scope: "user_read", userId: "mia@example.com" })).key;
  });
  afterAll(() => t?.close());

  const call = (op: Op, key: string) =>
    t.api(
      op.method,
      op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(PARAMS[name] ?? "x")),
      op.method === "GET" || op.method === "DELETE" ? undefined : {},
      { key },
    );

  it("the table covers the API's operations", () => {
    expect(ops.length).toBeGreaterThan(60);
    expect(ops.filter(isProvisioningReport)).toHaveLength(6);
  });

  // Read-only kinds first: every change they are refused must leave the feed as it was.
  const KINDS: Kind[] = ["organization_read", "team_read", "owner_user_read", "member_user_read", "connector", "organization", "owner_user"];
  it.each(KINDS)("a %s key: 403 exactly where its scope ends, and never a 5xx", async (k) => {
    const head = (await t.api("GET", "/api/events/recent")).body;
    const wrong: string[] = [];
    for (const op of ops) {
      const res = await call(op, keys[k]);
      expect(res.status, `${op.method} ${op.path}`).toBeLessThan(500);
      expect(res.status, `${op.method} ${op.path}`).not.toBe(401);
      const allowed = res.status !== 403;
      if (allowed !== expectedAllowed(k, op)) wrong.push(`${op.method} ${op.path} (${op.operationId}) answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
    if (k !== "organization" && k !== "owner_user") expect((await t.api("GET", "/api/events/recent")).body).toEqual(head);
  });

  it("refused changes over real resources change nothing, whatever the body", async () => {
    const before = (await t.api("GET", "/api/teams/sales")).body;
    for (const k of ["organization_read", "team_read", "owner_user_read", "member_user_read", "connector"] as const) {
      const res = await t.api("PUT", "/api/teams/sales", { name: `Renamed by ${k}` }, { key: keys[k] });
      expect(res.status, k).toBe(403);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.body.detail).toContain("rule: ");
      expect((await t.api("DELETE", "/api/teams/marketing", undefined, { key: keys[k] })).status).toBe(403);
    }
    expect((await t.api("GET", "/api/teams/sales")).body).toEqual(before);
    expect((await t.api("GET", "/api/teams/marketing")).status).toBe(200);
  });

  it("a connector key reads the feed, reports provisioning and keeps its state; it cannot approve, cancel or delete", async () => {
    await t.api("PUT", "/api/datacontracts/orders-v1", {
      dataContractSpecification: "0.9.3",
      info: { title: "Orders", version: "1.0.0", owner: "sales" },
      schema: { type: "custom", specification: "orders" },
    });
    await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres", dataContractId: "orders-v1" }] });
    const body = { info: { purpose: "Attribution" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "marketing" } };
    expect((await t.api("PUT", "/api/access/by-connector", body)).status).toBe(200);
    const key = keys.connector;
    expect((await t.api("POST", "/api/access/by-connector/approve", {}, { key })).status).toBe(403);
    expect((await t.api("POST", "/api/access/by-connector/approve", {})).status).toBe(200);
    const feed = await t.api("GET", "/api/events", undefined, { key });
    expect(feed.status).toBe(200);
    expect((feed.body as any[]).some((e) => e.subject === "by-connector")).toBe(true);
    const reported = await t.api("POST", "/api/access/by-connector/provisioning/provisioning-succeeded", { platform: "postgres" }, { key });
    expect(reported.status, JSON.stringify(reported.body)).toBe(200);
    expect(reported.body.status).toBe("provisioned");
    const recent = (await t.api("GET", "/api/events/recent")).body as any[];
    expect(JSON.stringify(recent)).toContain("AccessProvisionedEvent");
    for (const [method, path] of [
      ["POST", "/api/access/by-connector/cancel"],
      ["POST", "/api/access/by-connector/reject"],
      ["PUT", "/api/access/by-connector"],
      ["DELETE", "/api/access/by-connector"],
      ["POST", "/api/api-keys"],
      ["DELETE", "/api/connectors/postgres-access"],
    ] as const) {
      expect((await t.api(method, path, method === "DELETE" ? undefined : body, { key })).status, `${method} ${path}`).toBe(403);
    }
    const state = await t.api("PUT", "/api/connectors/postgres-access", { info: { type: "postgres-access" }, state: { lastEventId: "x" } }, { key });
    expect(state.status, JSON.stringify(state.body)).toBe(200);
    expect((await t.api("GET", "/api/connectors/postgres-access", undefined, { key })).body.state).toEqual({ lastEventId: "x" });
    expect((await t.api("GET", "/api/access/by-connector")).body.info).toMatchObject({ status: "approved", active: true });
  });

  it("a user key acts as its person: a member changes their team's documents only, and the events name the key", async () => {
    const key = keys.member_user;
    const own = await t.api("PUT", "/api/teams/sales", { name: "Sales", description: "by Mia's key", members: [{ emailAddress: "mia@example.com" }] }, { key });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect((await t.api("PUT", "/api/teams/marketing", { name: "Taken over" }, { key })).status).toBe(403);
    expect((await t.api("GET", "/api/api-keys", undefined, { key })).status).toBe(403);
    expect((await t.api("GET", "/api/members", undefined, { key })).status).toBe(403);
    // An owner's key acts as an owner: it manages keys.
    expect((await t.api("GET", "/api/api-keys", undefined, { key: keys.owner_user })).status).toBe(200);
  });

  it("a user key follows its person: a new role takes effect at once, and removal ends the key", async () => {
    const created = (await t.api("POST", "/api/api-keys", { scope: "user", userId: "tom@example.com" })).body;
    expect(created.violations?.[0]?.field).toBe("userId");
    await t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, t.organizationId, "tom@example.com", "member", "a long enough password 3"));
    const tom = (await t.api("POST", "/api/api-keys", { scope: "user", userId: "tom@example.com" })).body;
    expect(tom.userId).toMatch(/\S/);
    expect(tom.userId).not.toContain("@");
    expect((await t.api("GET", "/api/api-keys", undefined, { key: tom.key })).status).toBe(403);
    expect((await t.api("PUT", "/api/members/tom@example.com", { role: "owner" }, { headers: { "if-match": "*" } })).status).toBe(200);
    expect((await t.api("GET", "/api/api-keys", undefined, { key: tom.key })).status).toBe(200);
    const byId = (await t.api("POST", "/api/api-keys", { scope: "user_read", userId: tom.userId })).body;
    expect(byId.scope).toBe("user_read");
    expect((await t.api("PUT", "/api/teams/sales", { name: "x" }, { key: byId.key })).status).toBe(403);
    expect((await t.api("DELETE", "/api/members/tom@example.com")).status).toBe(204);
    for (const k of [tom.key, byId.key]) expect((await t.api("GET", "/api/teams", undefined, { key: k })).status).toBe(401);
  });

  it("creating a key checks the binding each scope needs", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ scope: "user" }, "userId"],
      [{ scope: "user_read", userId: "stranger@example.com" }, "userId"],
      [{ scope: "user", userId: "mia@example.com", teamId: "sales" }, "teamId"],
      [{ scope: "team", teamId: "sales", userId: "mia@example.com" }, "userId"],
      [{ scope: "connector", teamId: "sales" }, "teamId"],
      [{ scope: "organization_read", userId: "mia@example.com" }, "userId"],
      [{ scope: "superuser" }, "scope"],
    ];
    for (const [body, field] of cases) {
      const res = await t.api("POST", "/api/api-keys", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.violations.map((v: any) => v.field), JSON.stringify(body)).toContain(field);
    }
    const listed = (await t.api("GET", "/api/api-keys")).body as any[];
    expect(new Set(listed.map((k) => k.scope))).toEqual(new Set(["organization", "organization_read", "team", "team_read", "connector", "user", "user_read"]));
    expect(listed.filter((k) => k.scope === "connector").every((k) => k.userId === null && k.teamId === null)).toBe(true);
  });
});
