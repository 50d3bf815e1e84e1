import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { FastifyBaseLogger } from "fastify";
import { PeriodicTask } from "../../platform/periodic.js";
import { schedulerLag } from "../../metrics/registry.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { accessRepository } from "./repository.js";
import type { AccessService } from "./service.js";

/** Accesses brought up to date per transaction: small enough that one slice never holds the event loop for long. */
export const SLICE = 50;
const ORGANIZATIONS_PER_ROUND = 100;

/**
 * Activates accesses whose start date has come and deactivates those whose end date has passed,
 * as the system. Every Steward process runs one. Due accesses are taken in slices, one
 * organization and one transaction at a time, locked with SKIP LOCKED on PostgreSQL, and each is
 * re-checked under its lock (AccessService.refreshDue), so a transition happens once however many
 * processes run. Between slices the scheduler yields to the event loop, so thousands of accesses
 * falling due at once never stop requests from being served (on SQLite the queries run on the
 * main thread). On start it catches up on everything that fell due while no process was running.
 */
export class AccessScheduler {
  private readonly periodic: PeriodicTask;

  constructor(
    private readonly database: Database,
    private readonly access: AccessService,
    private readonly clock: Clock,
    intervalMs: number,
    logger: FastifyBaseLogger,
  ) {
    // How late each pass starts against its plan (the end of the last pass plus the interval): a busy event loop shows here.
    let planned: number | undefined;
    const pass = async () => {
      if (planned !== undefined) schedulerLag.observe(Math.max(0, Date.now() - planned) / 1000);
      try {
        return await this.tick();
      } finally {
        planned = Date.now() + intervalMs;
      }
    };
    this.periodic = new PeriodicTask(pass, intervalMs, (error) => logger.error({ err: error }, "access scheduler pass failed; retrying"));
  }

  start(): void {
    this.periodic.start();
  }

  async stop(): Promise<void> {
    await this.periodic.stop();
  }

  /** One pass: everything due at the clock's now, slice by slice. Answers how many accesses changed. */
  async tick(): Promise<number> {
    let handled = 0;
    for (;;) {
      const organizations = await accessRepository.dueOrganizations(this.database.db, this.clock.now().toISOString(), ORGANIZATIONS_PER_ROUND);
      let progressed = false;
      for (const organizationId of organizations) {
        for (;;) {
          if (this.periodic.stopping) return handled;
          const changed = await this.access.refreshDue(organizationId, SLICE);
          await yieldToEventLoop();
          handled += changed;
          if (changed > 0) progressed = true;
          // Fewer than a full slice: this organization is done, or another process holds the rest.
          if (changed < SLICE) break;
        }
      }
      // Nothing changed this round: what is still due is locked by another process; next tick.
      if (!progressed) return handled;
    }
  }
}
