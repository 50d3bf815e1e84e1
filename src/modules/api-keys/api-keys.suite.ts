import { describe, expect, it } from "vitest";
import { ManualClock } from "../../platform/clock.js";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function apiKeyTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`API keys and authentication (%s)${check.label}`, (kind) => {
    const clock = new ManualClock("2026-06-01T12:00:00.000Z");

    const t = suiteServer(kind, {
      clock,
      setup: async (t) => {
        expect((await t.api("PUT", "/api/teams/payments", { name: "Payments" })).status).toBe(200);
        expect((await t.api("PUT", "/api/teams/search", { name: "Search" })).status).toBe(200);
      },
    });

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
      // A plain date keeps the key valid through that day (UTC), as in the reference product.
      clock.set("2026-06-02T23:59:59.000Z");
      expect((await t.api("GET", "/api/teams", undefined, { key: created.body.key })).status).toBe(200);
      clock.set("2026-06-03T00:00:00.000Z");
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
        [{ displayName: "", scope: "organization" }, "displayName"],
        [{ scope: "team_read" }, "teamId"],
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
      // The record stays, listed with when and by whom it was revoked; revoking again changes nothing.
      const listed = (await t.api("GET", "/api/api-keys")).body.find((k: any) => k.id === created.body.id);
      expect(listed).toMatchObject({ revokedAt: clock.now().toISOString(), revokedBy: `api-key:${created.body.id}` });
      expect((await t.api("DELETE", `/api/api-keys/${created.body.id}`)).status).toBe(204);
      expect((await t.api("GET", `/api/api-keys/${created.body.id}`)).body.revokedBy).toBe(`api-key:${created.body.id}`);
      expect((await t.api("DELETE", "/api/api-keys/00000000-0000-7000-8000-000000000000")).status).toBe(404);
    });

    it("answers keys in the reference shape: organizationApiKeyId, a default displayName", async () => {
      // The reference product's team ids are UUIDs; a team with such an id answers in its shape exactly.
      const teamId = "3f2c1a5e-9b7d-4c1e-8f00-1234567890ab";
      await t.api("PUT", `/api/teams/${teamId}`, { name: "Billing" });
      const created = await t.api("POST", "/api/api-keys", { scope: "team", teamId });
      expect(created.status).toBe(201);
      expect(created.body.organizationApiKeyId).toBe(created.body.id);
      expect(created.body.displayName).toBe(`team key of team '${teamId}', 2026-06-01`);
      check.answer("POST", "/api/api-keys", 201, created.body);
      const org = await t.api("POST", "/api/api-keys", { scope: "organization" });
      expect(org.body.displayName).toBe("organization key, 2026-06-01");
    });

    it("lets a team_read key read everything and change nothing", async () => {
      const created = await t.api("POST", "/api/api-keys", { scope: "team_read", teamId: "payments", displayName: "dashboards" });
      expect(created.body).toMatchObject({ scope: "team_read", teamId: "payments" });
      const key = created.body.key;
      const as = (method: string, path: string, body?: unknown) => t.api(method, path, body, { key });
      expect((await as("GET", "/api/teams/payments")).status).toBe(200);
      expect((await as("GET", "/api/dataproducts")).status).toBe(200);
      expect((await as("GET", "/api/events")).status).toBe(200);
      const refused: Array<[string, string, unknown]> = [
        ["PUT", "/api/teams/payments", { name: "Payments" }],
        ["DELETE", "/api/teams/payments", undefined],
        ["PUT", "/api/datacontracts/c", { info: { title: "C", version: "1", owner: "payments" }, schema: { type: "custom", specification: "x" } }],
        ["PUT", "/api/dataproducts/p", { info: { title: "P", owner: "payments" } }],
        ["PUT", "/api/assets/a", { info: { owner: "payments" } }],
        ["PUT", "/api/tags/t", { owner: "payments" }],
        ["PUT", "/api/connectors/c", { info: { type: "x" } }],
        ["POST", "/api/api-keys", { scope: "team", teamId: "payments" }],
        ["GET", "/api/api-keys", undefined],
      ];
      for (const [method, path, body] of refused) {
        const res = await as(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.headers.get("content-type")).toMatch(/problem\+json/);
      }
      expect((await t.api("GET", "/api/teams/payments")).body.name).toBe("Payments");
    });

    it("lists keys a page at a time, revoked ones included, with a Link to the next page", async () => {
      const org = await t.createOrganization("paged keys");
      const asOrg = (method: string, path: string, body?: unknown) => t.api(method, path, body, { key: org.key });
      for (const name of ["k1", "k2", "k3", "k4"]) expect((await asOrg("POST", "/api/api-keys", { displayName: name, scope: "organization" })).status).toBe(201);
      const all = (await asOrg("GET", "/api/api-keys")).body as Array<{ id: string; displayName: string }>;
      expect(all).toHaveLength(5);
      expect((await asOrg("DELETE", `/api/api-keys/${all[1].id}`)).status).toBe(204);

      const seen: string[] = [];
      let next: string | undefined = "/api/api-keys?pageSize=2";
      const links: string[] = [];
      while (next) {
        const page = await asOrg("GET", next);
        expect(page.status).toBe(200);
        expect(page.body.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.map((k: { id: string }) => k.id));
        next = /<([^>]+)>; rel="next"/.exec(page.headers.get("link") ?? "")?.[1];
        if (next) links.push(next);
      }
      expect(links).toEqual(["/api/api-keys?pageSize=2&p=1", "/api/api-keys?pageSize=2&p=2"]);
      expect(seen).toEqual(all.map((k) => k.id));
      expect((await asOrg("GET", "/api/api-keys?pageSize=2&p=3")).body).toEqual([]);

      for (const query of ["p=-1", "p=abc", "p=1.5", "pageSize=0", "pageSize=10001", "pageSize=x"]) {
        const res = await asOrg("GET", `/api/api-keys?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.headers.get("content-type")).toMatch(/problem\+json/);
      }
    });
  });
}
