import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/platform/database/index.js";
import { migrateToLatest } from "../../src/platform/database/migrations/index.js";
import { notificationRepository as repo } from "../../src/notifications/repository.js";
import { createTestDatabase, DATABASES } from "../helpers/databases.js";

/**
 * A target's deliveries are taken in runs (docs/notifications.md, "Deliver"): the head is leased
 * by a conditional update, the rest of the run is not leased one by one, and while the head is
 * leased and pending no one else starts on the target.
 */
describe.each(DATABASES)("runs of a target's deliveries (%s)", (kind) => {
  it("leases the head alone, takes the next ones in order, and lets no second taker in until the run is recorded", async () => {
    const test = await createTestDatabase(kind);
    const database = openDatabase(test.url);
    try {
      await migrateToLatest(database);
      const db = database.db;
      const at = "2026-01-01T00:00:00.000Z";
      await db.insertInto("organizations").values({ id: "org", name: "Org", created_at: at }).execute();
      const delivery = (target: string, seq: number) => ({
        id: `${target}-${seq}`, organization_id: "org", target, team_id: "sales", channel_id: target, user_id: null, event_id: `e${seq}`, event_seq: seq,
        kind: "access-requested", message: "{}", status: "pending" as const, attempts: 0, next_attempt_at: at, lease_until: null,
        last_status_code: null, last_error: null, created_at: at, last_attempt_at: null, delivered_at: null,
      });
      await repo.insertDeliveries(db, [5, 3, 1, 4, 2].map((seq) => delivery("t", seq)).concat([delivery("u", 1)]));
      const now = "2026-01-01T00:00:01.000Z";
      const until = "2026-01-01T00:01:01.000Z";
      const take = (target: string, when = now, leasedUntil = until) => db.transaction().execute((trx) => repo.leaseRun(trx, target, when, leasedUntil, 3));
      const leases = async () => Object.fromEntries((await db.selectFrom("notification_deliveries").select(["id", "lease_until"]).execute()).map((r) => [r.id, r.lease_until]));

      expect((await take("t")).map((d) => d.id)).toEqual(["t-1", "t-2", "t-3"]);
      expect(await leases()).toMatchObject({ "t-1": until, "t-2": null, "t-3": null, "t-4": null, "u-1": null });
      expect(await take("t")).toEqual([]);
      expect((await take("u")).map((d) => d.id)).toEqual(["u-1"]);

      // Two delivered, the third to be retried later: it is the head now, and not due.
      await repo.recordAttempts(db, ["t-1", "t-2"], { status: "delivered", at: now, statusCode: 204, error: null });
      await repo.recordAttempts(db, ["t-3"], { status: "pending", at: now, nextAttemptAt: "2026-01-01T00:00:11.000Z", statusCode: 500, error: "The receiver answered 500." });
      const rows = await db.selectFrom("notification_deliveries").select(["id", "status", "attempts", "lease_until", "delivered_at", "last_status_code"]).where("target", "=", "t").orderBy("event_seq").execute();
      expect(rows.map((r) => [r.id, r.status, Number(r.attempts), r.lease_until, r.delivered_at, r.last_status_code])).toEqual([
        ["t-1", "delivered", 1, null, now, 204],
        ["t-2", "delivered", 1, null, now, 204],
        ["t-3", "pending", 1, null, null, 500],
        ["t-4", "pending", 0, null, null, null],
        ["t-5", "pending", 0, null, null, null],
      ]);
      expect(await take("t")).toEqual([]);
      expect((await take("t", "2026-01-01T00:00:12.000Z")).map((d) => d.id)).toEqual(["t-3", "t-4", "t-5"]);

      // A lease run out is taken again; two takers at once: one wins the run, the other gets none.
      const later = "2026-01-01T00:02:00.000Z";
      const both = await Promise.all([take("t", later, "2026-01-01T00:03:00.000Z"), take("t", later, "2026-01-01T00:03:00.000Z")]);
      expect(both.map((run) => run.length).sort()).toEqual([0, 3]);
    } finally {
      await database.close();
      await test.drop();
    }
  }, 60_000);
});
