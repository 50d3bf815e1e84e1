import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { ManualClock } from "../../platform/clock.js";
import { openDatabase } from "../../platform/database/index.js";
import { KeyCache } from "./key-cache.js";
import { LEASE_MS } from "./key-lease.js";
import { apiKeyRepository, type ApiKeyRow } from "./repository.js";

describe("KeyCache", () => {
  const row = (id: string) => ({ id }) as ApiKeyRow;

  it("serves a key only while nothing was written, and never one read across a write", () => {
    let stamp = 1;
    const cache = new KeyCache(() => String(stamp));
    let mark = cache.mark();
    cache.remember("h1", row("k1"), mark);
    expect(cache.get("h1")?.id).toBe("k1");
    stamp++; // any write, by this process or another
    expect(cache.get("h1")).toBeUndefined();

    mark = cache.mark();
    stamp++; // a write between the lookup and remembering it: the row may already be stale
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
  let t: TestServer;
  const clock = new ManualClock("2026-06-01T12:00:00.000Z");
  beforeAll(async () => {
    t = await startTestServer(kind, {}, clock);
  });
  afterAll(() => t?.close());

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

  it("refuses a remembered key once it expired", async () => {
    const created = await t.api("POST", "/api/api-keys", { displayName: "short", scope: "organization", expiresAt: "2026-06-01T13:00:00Z" });
    expect(await status(created.body.key)).toBe(200);
    expect(await status(created.body.key)).toBe(200);
    clock.advance(60 * 60 * 1000);
    expect(await status(created.body.key)).toBe(401);
  });
});
