import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../platform/clock.js";
import { DATABASES } from "../../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";

describe.each(DATABASES)("API keys and authentication (%s)", (kind) => {
  let t: TestServer;
  const clock = new ManualClock("2026-06-01T12:00:00.000Z");

  beforeAll(async () => {
    t = await startTestServer(kind, {}, clock);
    expect((await t.api("PUT", "/api/teams/payments", { name: "Payments" })).status).toBe(200);
    expect((await t.api("PUT", "/api/teams/search", { name: "Search" })).status).toBe(200);
  });
  afterAll(() => t?.close());

  const unauthorizedDetail = async (key: string | null, headers: Record<string, string> = {}) => {
    const res = await t.api("GET", "/api/teams", undefined, { key, headers });
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    return res.body.detail as string;
  };

  it("answers 401 with one and the same detail for missing, unknown, revoked and expired keys", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "short-lived", scope: "organization", expiresAt: "2026-06-02" });
    expect(created.status).toBe(201);
    const revocable = await t.api("POST", "/api/api-keys", { displayName: "revocable", scope: "organization" });
    expect((await t.api("GET", "/api/teams", undefined, { key: revocable.body.key })).status).toBe(200);
    expect((await t.api("DELETE", `/api/api-keys/${revocable.body.id}`)).status).toBe(204);

    const missing = await unauthorizedDetail(null);
    const garbage = await unauthorizedDetail("stw_not-a-real-key");
    const empty = await unauthorizedDetail(null, { "x-api-key": "" });
    const revoked = await unauthorizedDetail(revocable.body.key);
    clock.set("2026-06-02T00:00:00.000Z");
    const expired = await unauthorizedDetail(created.body.key);
    clock.set("2026-06-01T12:00:00.000Z");
    expect(new Set([missing, garbage, empty, revoked, expired]).size).toBe(1);
    // Before its expiry the same key worked.
    expect((await t.api("GET", "/api/teams", undefined, { key: created.body.key })).status).toBe(200);
  });

  it("accepts the key as a bearer token", async () => {
    const res = await t.api("GET", "/api/teams", undefined, { key: null, headers: { authorization: `Bearer ${t.key}` } });
    expect(res.status).toBe(200);
  });

  it("creates keys with a stw_ secret shown once and lists them without secrets", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "ci", scope: "team", teamId: "payments" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ displayName: "ci", scope: "team", teamId: "payments", expiresAt: null, lastUsedAt: null });
    expect(created.body.key).toMatch(/^stw_[A-Za-z0-9_-]{43}$/);
    expect(created.headers.get("cache-control")).toBe("no-store");

    const list = await t.api("GET", "/api/api-keys");
    expect(list.status).toBe(200);
    const listed = list.body.find((k: any) => k.id === created.body.id);
    expect(listed).toMatchObject({ displayName: "ci", scope: "team", teamId: "payments" });
    expect(list.text).not.toContain(created.body.key);
    expect(list.text).not.toContain(created.body.key.slice(4, 20));
    for (const k of list.body) expect(Object.keys(k)).not.toContain("key");
    const one = await t.api("GET", created.headers.get("location")!);
    expect(one.body).toEqual(listed);
  });

  it("stores only a hash of the secret", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "hash check", scope: "organization" });
    const rows = await t.server.services.database.db.selectFrom("api_keys").selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(created.body.key);
    expect(dump).not.toContain(created.body.key.slice(4));
  });

  it("records lastUsedAt on use", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "usage", scope: "organization" });
    await t.api("GET", "/api/teams", undefined, { key: created.body.key });
    const listed = (await t.api("GET", "/api/api-keys")).body.find((k: any) => k.id === created.body.id);
    expect(listed.lastUsedAt).toBe(clock.now().toISOString());
  });

  it("returns expiresAt as sent, for plain dates and date-times", async () => {
    const date = await t.api("POST", "/api/api-keys", { displayName: "d", scope: "organization", expiresAt: "2027-01-01" });
    const dateTime = await t.api("POST", "/api/api-keys", { displayName: "dt", scope: "organization", expiresAt: "2027-01-01T10:00:00+02:00" });
    expect(date.body.expiresAt).toBe("2027-01-01");
    expect(dateTime.body.expiresAt).toBe("2027-01-01T10:00:00+02:00");
  });

  it("rejects invalid key requests with violations and creates nothing", async () => {
    const before = (await t.api("GET", "/api/api-keys")).body.length;
    const cases: Array<[unknown, string]> = [
      [{ displayName: "x", scope: "team" }, "teamId"],
      [{ displayName: "x", scope: "team", teamId: "nope" }, "teamId"],
      [{ displayName: "x", scope: "organization", teamId: "payments" }, "teamId"],
      [{ displayName: "x", scope: "organization", expiresAt: "tomorrow" }, "expiresAt"],
      [{ displayName: "x", scope: "organization", expiresAt: "2020-01-01" }, "expiresAt"],
      [{ displayName: "x", scope: "galaxy" }, "scope"],
      [{ scope: "organization" }, "displayName"],
    ];
    for (const [body, field] of cases) {
      const res = await t.api("POST", "/api/api-keys", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.violations.map((v: any) => v.field)).toContain(field);
    }
    expect((await t.api("GET", "/api/api-keys")).body.length).toBe(before);
  });

  it("lets only organization keys manage keys (team keys get 403)", async () => {
    const teamKey = (await t.api("POST", "/api/api-keys", { displayName: "team", scope: "team", teamId: "search" })).body.key;
    expect((await t.api("GET", "/api/api-keys", undefined, { key: teamKey })).status).toBe(403);
    expect((await t.api("POST", "/api/api-keys", { displayName: "x", scope: "organization" }, { key: teamKey })).status).toBe(403);
    const some = (await t.api("GET", "/api/api-keys")).body[0];
    expect((await t.api("DELETE", `/api/api-keys/${some.id}`, undefined, { key: teamKey })).status).toBe(403);
  });

  it("lets a team key change only its own team", async () => {
    const teamKey = (await t.api("POST", "/api/api-keys", { displayName: "team", scope: "team", teamId: "search" })).body.key;
    expect((await t.api("GET", "/api/teams/payments", undefined, { key: teamKey })).status).toBe(200);
    expect((await t.api("PUT", "/api/teams/search", { name: "Search & Discovery" }, { key: teamKey })).status).toBe(200);
    const other = await t.api("PUT", "/api/teams/payments", { name: "Taken over" }, { key: teamKey });
    expect(other.status).toBe(403);
    expect(other.headers.get("content-type")).toMatch(/problem\+json/);
    expect((await t.api("PUT", "/api/teams/new-team", { name: "New" }, { key: teamKey })).status).toBe(403);
    expect((await t.api("DELETE", "/api/teams/payments", undefined, { key: teamKey })).status).toBe(403);
    expect((await t.api("GET", "/api/teams/payments")).body.name).toBe("Payments");
  });

  it("keeps organizations apart: another organization's ids answer 404, and the same id can exist in both", async () => {
    const other = await t.createOrganization(`other-${kind}`);
    const asOther = (method: string, path: string, body?: unknown) => t.api(method, path, body, { key: other.key });
    expect((await asOther("GET", "/api/teams/payments")).status).toBe(404);
    expect((await asOther("DELETE", "/api/teams/payments")).status).toBe(404);
    expect((await asOther("GET", "/api/teams")).body).toEqual([]);
    const someKey = (await t.api("GET", "/api/api-keys")).body[0];
    expect((await asOther("DELETE", `/api/api-keys/${someKey.id}`)).status).toBe(404);
    // Same client-chosen id, independently.
    expect((await asOther("PUT", "/api/teams/payments", { name: "Their payments" })).status).toBe(200);
    expect((await t.api("GET", "/api/teams/payments")).body.name).toBe("Payments");
    expect((await asOther("GET", "/api/teams/payments")).body.name).toBe("Their payments");
    const theirFeed = (await asOther("GET", "/api/events")).body;
    expect(theirFeed).toHaveLength(1);
    expect(theirFeed[0].subject).toBe("payments");
  });

  it("revocation takes effect on the very next request", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "to revoke", scope: "organization" });
    expect((await t.api("GET", "/api/teams", undefined, { key: created.body.key })).status).toBe(200);
    // A key may revoke itself; the request that does it still succeeds.
    expect((await t.api("DELETE", `/api/api-keys/${created.body.id}`, undefined, { key: created.body.key })).status).toBe(204);
    expect((await t.api("GET", "/api/teams", undefined, { key: created.body.key })).status).toBe(401);
    expect((await t.api("DELETE", `/api/api-keys/${created.body.id}`)).status).toBe(404);
    expect((await t.api("GET", "/api/api-keys")).body.map((k: any) => k.id)).not.toContain(created.body.id);
  });
});
