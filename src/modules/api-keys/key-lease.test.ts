import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapKey, Processes } from "../../../test/feed/helpers.js";
import type { ServeProcess } from "../../../test/helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/databases.js";
import { request } from "../../../test/helpers/server.js";
import { openDatabase } from "../../platform/database/index.js";
import { KeyCache } from "./key-cache.js";
import { KeyLease, LEASE_MS } from "./key-lease.js";
import { apiKeyRepository, type ApiKeyRow } from "./repository.js";

describe("KeyLease", () => {
  it("lets remembered keys be used only within 250 ms of a heartbeat's sending, and forgets them on any key change", () => {
    let now = 1_000;
    const lease = new KeyLease(() => now);
    const cache = new KeyCache(() => lease.stamp());
    const row = { id: "k" } as ApiKeyRow;
    // No heartbeat back yet: nothing is remembered.
    cache.remember("h", row, cache.mark());
    expect(cache.get("h")).toBeUndefined();

    lease.renewed(990); // sent at 990, back at 1,000: trusted until 1,240
    cache.remember("h", row, cache.mark());
    expect(cache.get("h")).toBe(row);
    now = 990 + LEASE_MS - 1;
    expect(cache.get("h")).toBe(row);
    now = 990 + LEASE_MS;
    expect(cache.get("h")).toBeUndefined();

    lease.renewed(now);
    cache.remember("h", row, cache.mark());
    lease.keysChanged(); // another process revoked a key
    expect(cache.get("h")).toBeUndefined();

    cache.remember("h", row, cache.mark());
    expect(cache.get("h")).toBe(row);
    lease.lost(); // the listener connection broke
    lease.renewed(now - 1_000); // a stale heartbeat cannot bring it back
    expect(cache.get("h")).toBeUndefined();
  });

  it("keeps nothing read across a key change", () => {
    const lease = new KeyLease(() => 0);
    lease.renewed(0);
    const cache = new KeyCache(() => lease.stamp());
    const mark = cache.mark();
    lease.keysChanged(); // the row looked up may predate this revocation
    cache.remember("h", { id: "k" } as ApiKeyRow, mark);
    expect(cache.get("h")).toBeUndefined();
  });
});

/**
 * Two `steward serve` processes on one PostgreSQL: keys are remembered, yet a key revoked through
 * one process is refused by the other on the very next request, every time.
 */
describe("remembered keys across processes (postgres)", () => {
  const processes = new Processes();
  let database: TestDatabase;
  let a: ServeProcess;
  let b: ServeProcess;
  let admin: string;
  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    a = await processes.start({ DATABASE_URL: database.url });
    admin = bootstrapKey(a);
    b = await processes.start({ DATABASE_URL: database.url, STEWARD_BOOTSTRAP: "false" });
  }, 60_000);
  afterAll(async () => {
    await processes.stopAll();
    await database?.drop();
  });

  const teams = async (url: string, key: string) => (await request(url, "GET", "/api/teams", undefined, { key })).status;

  it("refuses a key revoked through the other process on the very next request", async () => {
    for (let round = 0; round < 10; round++) {
      const created = await request(a.url, "POST", "/api/api-keys", { displayName: `round ${round}`, scope: "organization" }, { key: admin });
      expect(created.status).toBe(201);
      const key = created.body.key as string;
      // Used often enough on B to be remembered there (and on A).
      for (let i = 0; i < 5; i++) expect(await teams(b.url, key)).toBe(200);
      expect(await teams(a.url, key)).toBe(200);
      const revoked = await request(a.url, "DELETE", `/api/api-keys/${created.body.id}`, undefined, { key: admin });
      expect(revoked.status).toBe(204);
      expect(await teams(b.url, key)).toBe(401);
      expect(await teams(a.url, key)).toBe(401);
    }
  }, 60_000);

  it("refuses a key revoked by hand in the database within the lease", async () => {
    const created = await request(b.url, "POST", "/api/api-keys", { displayName: "by hand", scope: "organization" }, { key: admin });
    const key = created.body.key as string;
    for (let i = 0; i < 3; i++) expect(await teams(a.url, key)).toBe(200);
    const other = openDatabase(database.url);
    try {
      const organizationId = (await other.db.selectFrom("api_keys").select("organization_id").where("id", "=", created.body.id).executeTakeFirstOrThrow()).organization_id;
      expect(await apiKeyRepository.revoke(other.db, organizationId, created.body.id, new Date().toISOString(), "system")).toBe(true);
    } finally {
      await other.close();
    }
    // The trigger announces it; after one lease no process may still accept the key.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    expect(await teams(a.url, key)).toBe(401);
    expect(await teams(b.url, key)).toBe(401);
  });
});
