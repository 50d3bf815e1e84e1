/** PostgreSQL's view of the events table, for keeping its planner statistics current (`statistics.ts`). */
import { sql } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import type { EventTableActivity } from "./statistics.js";

/** First key of the advisory lock that lets one process at a time look after the statistics. */
const STATISTICS_LOCK_SPACE = 0x5375;

export const eventStatisticsRepository = {
  /** Takes the statistics lock for the rest of the transaction, if no other process holds it. */
  async tryLock(trx: Executor): Promise<boolean> {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${sql.lit(STATISTICS_LOCK_SPACE)}, 0) as locked`.execute(trx);
    return rows[0]?.locked === true;
  },

  /** The counters PostgreSQL keeps for the events table, and whether its columns have statistics. */
  async activity(trx: Executor): Promise<EventTableActivity | undefined> {
    const { rows } = await sql<{ may_analyze: boolean; has_statistics: boolean; live_rows: string; estimated_rows: number; changed_since_analyze: string }>`
      select
        pg_has_role(c.relowner, 'MEMBER') as may_analyze,
        exists (select 1 from pg_stats p where p.schemaname = s.schemaname and p.tablename = s.relname and p.attname = 'organization_id') as has_statistics,
        s.n_live_tup as live_rows,
        c.reltuples as estimated_rows,
        s.n_mod_since_analyze as changed_since_analyze
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.relid = to_regclass('events')`.execute(trx);
    const [row] = rows;
    if (!row) return undefined;
    return {
      mayAnalyze: row.may_analyze,
      hasStatistics: row.has_statistics,
      liveRows: Number(row.live_rows),
      estimatedRows: Number(row.estimated_rows),
      changedSinceAnalyze: Number(row.changed_since_analyze),
    };
  },

  /** Samples the table anew (reads and writes go on meanwhile). */
  async analyze(trx: Executor): Promise<void> {
    await sql`analyze events`.execute(trx);
  },
};
