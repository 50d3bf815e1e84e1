import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "./clock.js";
import { PeriodicTask } from "./periodic.js";

/** Most rows one statement of a retention sweep removes. */
export const RETENTION_BATCH = 1000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/** Removes up to `limit` rows made before `cutoff`, of any organization; answers how many. */
export type RemoveBefore = (cutoff: string, limit: number) => Promise<number>;

/**
 * What is kept only for a number of days (lineage events, usage spans and the reads and uses
 * without an agreement found in them: docs/lineage.md): the instant before which rows go, and an
 * hourly sweep over every organization that removes them a batch at a time, table by table
 * (`removers`), stopping early when the server stops. Requests never delete old rows themselves.
 */
export class Retention {
  private sweeper?: PeriodicTask;

  constructor(
    private readonly what: string,
    private readonly clock: Clock,
    private readonly days: number,
    private readonly removers: readonly RemoveBefore[],
  ) {}

  /** The instant before which rows are past the retention, as ISO 8601. */
  cutoff(now: Date = this.clock.now()): string {
    return new Date(now.getTime() - this.days * 86_400_000).toISOString();
  }

  /** Starts the hourly sweep (the server starts and stops it). */
  start(logger: FastifyBaseLogger): void {
    this.sweeper = new PeriodicTask(() => this.sweep(), SWEEP_INTERVAL_MS, (error) => logger.error({ err: error }, `${this.what} retention sweep failed; retrying`));
    this.sweeper.start();
  }

  async stop(): Promise<void> {
    await this.sweeper?.stop();
  }

  /** Removes every organization's rows past the retention; answers how many. */
  async sweep(): Promise<number> {
    const cutoff = this.cutoff();
    let removed = 0;
    for (const removeBefore of this.removers) {
      for (;;) {
        const n = await removeBefore(cutoff, RETENTION_BATCH);
        removed += n;
        if (this.sweeper?.stopping === true) return removed;
        if (n < RETENTION_BATCH) break;
      }
    }
    return removed;
  }
}
