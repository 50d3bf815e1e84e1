import { describe, expect, it, vi } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { ManualClock } from "../../platform/clock.js";
import { sql } from "kysely";
import { openDatabase } from "../../platform/database/index.js";
import { KeyCache } from "./key-cache.js";
import { LEASE_MS } from "./key-lease.js";
import { apiKeyRepository, type ApiKeyRow } from "./repository.js";

describe("KeyCache", () => {
  const row = (id: string) => ({ id }) as ApiKeyRow;

  it("serves a key only while no key changed, and never one read across a change", () => {
    let stamp = 1;
    const cache = new KeyCache(() => String(stamp));
    let mark = cache.mark();
    cache.remember("h1", row("k1"), mark);
    expect(cache.get("h1")?.id).toBe("k1");
    stamp++; // a key changed, through this process or another
    expect(cache.get("h1")).toBeUndefined();

    mark = cache.mark();
    stamp++; // a change between the lookup and remembering it: the row may already be stale
    cache.remember("h2", row("k2"), mark);
    expect(cache.get("h2")).toBeUndefined();
  });

  it("remembers nothing without a stamp", () => {
    const cache = new KeyCache(undefined);
    cache.remember("h", row("k"), cache.mark());
    expect(cache.get("h")).toBeUndefined();
  });
});

describe.each(DATABASES)("authentication with remembered keys (%s)", (kind) => {
  const clock = new ManualClock("2026-06-01T12:00:00.000Z");
  const t = suiteServer(kind, { clock });

  const status = async (key: string) => (await t.api("GET", "/api/teams", undefined, { key })).status;

  it("refuses a key on the very next request after another process revoked it", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "elsewhere", scope: "organization" });
    expect(await status(created.body.key)).toBe(200);
    expect(await status(created.body.key)).toBe(200);
    // Another process: its own connection to the same database.
    const other = openDatabase(t.server.services.config.databaseUrl);
    try {
      expect(await apiKeyRepository.revoke(other.db, t.organizationId, created.body.id, clock.now().toISOString(), "api-key:elsewhere")).toBe(true);
    } finally {
      await other.close();
    }
    // On PostgreSQL a process answers a revocation one lease after it committed (key-lease.ts);
    // this stand-in for another process does the same.
    if (kind === "postgres") await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    expect(await status(created.body.key)).toBe(401);
  });

  it("refuses a key on the very next request after this process revoked it", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "here", scope: "organization" });
    expect(await status(created.body.key)).toBe(200);
    expect((await t.api("DELETE", `/api/api-keys/${created.body.id}`)).status).toBe(204);
    expect(await status(created.body.key)).toBe(401);
  });

  it("records a remembered key's use once per minute, not on every request", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "busy", scope: "organization" });
    const touches = vi.spyOn(apiKeyRepository, "touch");
    try {
      for (let i = 0; i < 6; i++) expect(await status(created.body.key)).toBe(200);
      expect(touches.mock.calls.filter(([, id]) => id === created.body.id)).toHaveLength(1);
    } finally {
      touches.mockRestore();
    }
  });

  it("keeps remembered keys while documents and events are written", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "writer", scope: "organization" });
    expect(await status(created.body.key)).toBe(200);
    const lookups = vi.spyOn(apiKeyRepository, "findByHash");
    try {
      for (let i = 0; i < 3; i++) {
        const write = await t.api("PUT", `/api/teams/written-${i}`, { name: `Written ${i}` }, { key: created.body.key });
        expect(write.status).toBe(200);
        expect(await status(created.body.key)).toBe(200);
      }
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });

  it.each([
    ["revoked", 401, (id: string) => sql`update api_keys set revoked_at = ${clock.now().toISOString()} where id = ${id}`],
    ["expired", 401, (id: string) => sql`update api_keys set expires_at = ${"2020-01-01T00:00:00.000Z"} where id = ${id}`],
    ["narrowed to reading", 403, (id: string) => sql`update api_keys set scope = ${"team_read"}, team_id = ${"someone"} where id = ${id}`],
    ["deleted", 401, (id: string) => sql`delete from api_keys where id = ${id}`],
  ] as const)("stops using a remembered key on the very next request after an operator's SQL %s it", async (_change, refused, statement) => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "operated", scope: "organization" });
    const write = () => t.api("PUT", "/api/teams/operated", { name: "Operated" }, { key: created.body.key });
    expect((await write()).status).toBe(200);
    expect((await write()).status).toBe(200);
    // The operator's own connection, as psql or sqlite3 would be.
    const operator = openDatabase(t.server.services.config.databaseUrl);
    try {
      await statement(created.body.id).execute(operator.db);
    } finally {
      await operator.close();
    }
    if (kind === "postgres") await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    expect((await write()).status).toBe(refused);
  });

  it("refuses a remembered key once it expired", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "short", scope: "organization", expiresAt: "2026-06-01T13:00:00Z" });
    expect(await status(created.body.key)).toBe(200);
    expect(await status(created.body.key)).toBe(200);
    clock.advance(60 * 60 * 1000);
    expect(await status(created.body.key)).toBe(401);
  });
});

/** SQLite alone keeps the counter (PostgreSQL announces key changes instead, key-lease.ts). */
describe("the counter of key changes (sqlite)", () => {
  const t = suiteServer("sqlite");

  const status = async (key: string) => (await t.api("GET", "/api/teams", undefined, { key })).status;

  it("remembers no key when the counter of key changes is gone", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "uncounted", scope: "organization" });
    expect(await status(created.body.key)).toBe(200);
    const { database } = t.server.services;
    await sql`delete from api_key_changes`.execute(database.db);
    expect(database.keyStamp!()).toBeUndefined();
    const lookups = vi.spyOn(apiKeyRepository, "findByHash");
    try {
      expect(await status(created.body.key)).toBe(200);
      expect(await status(created.body.key)).toBe(200);
      expect(lookups).toHaveBeenCalledTimes(2);
    } finally {
      lookups.mockRestore();
    }
  });
});
