/**
 * Keeps PostgreSQL's planner statistics of the events table current, so that reading a batch costs
 * the same whatever the size of the log (docs/product.md §6). Without statistics PostgreSQL guesses
 * that an organization has a few hundred events, and plans to read every one of them after the
 * consumer's position and sort them, instead of the next thousand from the index: a batch then
 * costs more the longer the log (0.2 s at 300,000 events). Autovacuum keeps the statistics
 * current where it is on; this covers installations where it is off or far behind. One process at
 * a time (an advisory lock) looks at the table's counters every minute and analyzes the table
 * when they say its statistics are missing or far behind. SQLite plans these reads by its indexes
 * alone and needs none of this.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Database } from "../../platform/database/index.js";
import { PeriodicTask } from "../../platform/periodic.js";
import { eventStatisticsRepository } from "./statistics-repository.js";

export interface EventTableActivity {
  /** Steward's database user owns the table (or is a superuser): only then does ANALYZE do anything. */
  mayAnalyze: boolean;
  /** The columns have statistics (the table was analyzed at least once). */
  hasStatistics: boolean;
  liveRows: number;
  /** The row count the planner works from (-1 before the first analysis or vacuum). */
  estimatedRows: number;
  changedSinceAnalyze: number;
}

/** Below this many rows, or changes, any plan reads a batch quickly. */
const FEW_ROWS = 1_000;
/** Share of the table that may change before its statistics count as behind (autovacuum's default is a tenth). */
const STALE_SHARE = 0.2;
const INTERVAL_MS = 60_000;

/**
 * Whether the statistics are behind:
 *
 * | statistics | behind when                                                 |
 * |------------|-------------------------------------------------------------|
 * | none       | the table holds at least `FEW_ROWS` rows                    |
 * | some       | `FEW_ROWS` rows, and a fifth of the table, changed since    |
 *
 * A database user that does not own the table cannot analyze it (PostgreSQL only warns): then
 * the statistics are the owner's business, and never count as behind here.
 */
export function statisticsBehind(activity: EventTableActivity): boolean {
  if (!activity.mayAnalyze) return false;
  if (!activity.hasStatistics) return activity.liveRows >= FEW_ROWS;
  return activity.changedSinceAnalyze >= Math.max(FEW_ROWS, STALE_SHARE * Math.max(0, activity.estimatedRows));
}

export class EventStatistics {
  private readonly periodic: PeriodicTask;

  constructor(
    private readonly database: Database,
    private readonly logger: FastifyBaseLogger,
  ) {
    this.periodic = new PeriodicTask(() => this.keepUp(), INTERVAL_MS, (error) =>
      logger.warn({ err: error }, "could not look after the events table's statistics; trying again later"),
    );
  }

  start(): void {
    if (this.database.dialect === "postgres") this.periodic.start();
  }

  async stop(): Promise<void> {
    await this.periodic.stop();
  }

  /** One look: analyzes the events table when its statistics are behind. Answers whether it did. */
  async keepUp(): Promise<boolean> {
    if (this.database.dialect !== "postgres") return false;
    return this.database.db.transaction().execute(async (trx) => {
      if (!(await eventStatisticsRepository.tryLock(trx))) return false;
      const activity = await eventStatisticsRepository.activity(trx);
      if (!activity || !statisticsBehind(activity)) return false;
      await eventStatisticsRepository.analyze(trx);
      this.logger.info({ activity }, "analyzed the events table, whose planner statistics were missing or behind");
      return true;
    });
  }
}
