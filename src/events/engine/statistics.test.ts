/**
 * The events table's planner statistics (docs/product.md §6): on PostgreSQL, a table never analyzed
 * makes a feed read sort every event of the organization after the position; one look by
 * `EventStatistics` analyzes it, and the read goes back to the index. On SQLite there is nothing
 * to do.
 */
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, DATABASES, type TestDatabase } from "../../../test/helpers/databases.js";
import { openDatabase, type Database } from "../../platform/database/index.js";
import { migrateToLatest } from "../../platform/database/migrations/index.js";
import { EventStatistics, statisticsBehind, type EventTableActivity } from "./statistics.js";
import { eventStatisticsRepository } from "./statistics-repository.js";

const silent = { info: () => undefined, warn: () => undefined } as never;

describe("when the events table's statistics count as behind", () => {
  const activity = (a: Partial<EventTableActivity>): EventTableActivity => ({
    mayAnalyze: true,
    hasStatistics: true,
    liveRows: 0,
    estimatedRows: 0,
    changedSinceAnalyze: 0,
    ...a,
  });

  it.each([
    ["never analyzed, a few rows", activity({ hasStatistics: false, liveRows: 999, estimatedRows: -1, changedSinceAnalyze: 999 }), false],
    ["never analyzed, a thousand rows", activity({ hasStatistics: false, liveRows: 1_000, estimatedRows: -1, changedSinceAnalyze: 1_000 }), true],
    ["analyzed empty, a thousand rows since", activity({ liveRows: 1_000, changedSinceAnalyze: 1_000 }), true],
    ["a tenth changed since", activity({ liveRows: 1_100_000, estimatedRows: 1_000_000, changedSinceAnalyze: 100_000 }), false],
    ["a fifth changed since", activity({ liveRows: 1_200_000, estimatedRows: 1_000_000, changedSinceAnalyze: 200_000 }), true],
    ["never analyzed, but owned by another user", activity({ mayAnalyze: false, hasStatistics: false, liveRows: 1_000_000, estimatedRows: -1 }), false],
  ])("%s: %s", (_name, given, behind) => {
    expect(statisticsBehind(given)).toBe(behind);
  });
});

describe.each(DATABASES)("the events table's statistics (%s)", (kind) => {
  let target: TestDatabase;
  let database: Database;
  const organizationId = "org-statistics";
  const ROWS = kind === "postgres" ? 200_000 : 10_000;

  /** How the database plans one page of the feed, as text. */
  async function plan(): Promise<string> {
    const page = sql`select seq from events where organization_id = ${organizationId} and seq > ${0} order by seq limit 1000`;
    const { rows } = await sql<Record<string, string>>`${sql.raw(kind === "postgres" ? "explain" : "explain query plan")} ${page}`.execute(database.db);
    return rows.map((row) => row["QUERY PLAN"] ?? row.detail).join("\n");
  }

  /**
   * Inserts `count` events on a connection of its own and closes it: a backend hands its table
   * counters to pg_stat_user_tables when it ends, at the latest. Waits until they arrive.
   */
  async function insertEvents(prefix: string, count: number): Promise<void> {
    const rows = sql`select ${prefix} || n, ${organizationId}, 'TeamUpdatedEvent', 'team-' || n, '2026-11-24T00:00:00.000Z', '{}', 'system'`;
    if (kind === "sqlite") {
      await sql`insert into events (id, organization_id, kind, subject, time, data, principal)
        with recursive g(n) as (select 1 union all select n + 1 from g where n < ${count}) ${rows} from g`.execute(database.db);
      return;
    }
    const compiled = sql`insert into events (id, organization_id, kind, subject, time, data, principal) ${rows} from generate_series(1, ${count}) as n`.compile(database.db);
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    const before = await liveRows();
    await client.query(compiled.sql, [...compiled.parameters]);
    await client.end();
    for (let waited = 0; (await liveRows()) < before + count; waited += 100) {
      if (waited > 15_000) throw new Error("the insert's counters never reached pg_stat_user_tables");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function liveRows(): Promise<number> {
    return (await eventStatisticsRepository.activity(database.db))?.liveRows ?? 0;
  }

  beforeAll(async () => {
    target = await createTestDatabase(kind);
    database = openDatabase(target.url);
    await migrateToLatest(database);
    await insertEvents("event-", ROWS);
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await target?.drop();
  });

  if (kind === "postgres") {
    it("analyzes a table that never was, once, and the feed read goes back to the index", async () => {
      expect(await plan()).toMatch(/Sort/);
      const statistics = new EventStatistics(database, silent);
      expect(await statistics.keepUp()).toBe(true);
      expect(await plan()).not.toMatch(/Sort/);
      // Fresh statistics: nothing to do.
      expect(await statistics.keepUp()).toBe(false);
    });

    it("leaves the table to the process that holds the statistics lock", async () => {
      // Half as many again: far more than a fifth of the table changed since it was analyzed.
      await insertEvents("more-", ROWS / 2);
      const other = new pg.Client({ connectionString: target.url });
      await other.connect();
      try {
        await other.query("begin");
        await other.query(`select pg_advisory_xact_lock(${0x5375}, 0)`);
        expect(await new EventStatistics(database, silent).keepUp()).toBe(false);
        await other.query("commit");
        expect(await new EventStatistics(database, silent).keepUp()).toBe(true);
      } finally {
        await other.end();
      }
    });

    it("leaves the table alone for a database user that does not own it", async () => {
      await insertEvents("other-", ROWS / 2);
      // A role of its own that may read and write the table but not analyze it.
      const role = `stats_${Math.random().toString(36).slice(2, 10)}`;
      await database.pool!.query(`create role ${role} login; grant select, insert on events to ${role}`);
      const url = new URL(target.url);
      url.username = role;
      const asRole = openDatabase(url.toString());
      try {
        expect(await new EventStatistics(asRole, silent).keepUp()).toBe(false);
        expect(await new EventStatistics(database, silent).keepUp()).toBe(true);
      } finally {
        await asRole.close();
        await database.pool!.query(`drop owned by ${role}; drop role ${role}`);
      }
    });
  } else {
    it("has nothing to do, and the feed read uses the index", async () => {
      expect(await new EventStatistics(database, silent).keepUp()).toBe(false);
      const planned = await plan();
      expect(planned).toMatch(/events_feed/);
      expect(planned).not.toMatch(/TEMP B-TREE/);
    });
  }
});
