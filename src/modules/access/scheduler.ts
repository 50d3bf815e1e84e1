import type { FastifyBaseLogger } from "fastify";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { accessRepository } from "./repository.js";
import type { AccessService } from "./service.js";

const BATCH = 200;

/**
 * Activates accesses whose start date has come and deactivates those whose end date has passed.
 * Every Steward process runs one; each due access is brought up to date in its own transaction
 * under a row lock (AccessService.refresh), so a transition happens once however many processes
 * see it. On start it catches up on everything that fell due while no process was running.
 */
export class AccessScheduler {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly database: Database,
    private readonly access: AccessService,
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly logger: FastifyBaseLogger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: everything due at the clock's now. */
  async tick(): Promise<number> {
    let handled = 0;
    for (;;) {
      const due = await accessRepository.due(this.database.db, this.clock.now().toISOString(), BATCH);
      for (const { organizationId, id } of due) {
        if (this.stopped) return handled;
        await this.access.refresh(organizationId, id);
        handled++;
      }
      if (due.length < BATCH) return handled;
    }
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((error) => this.logger.error({ err: error }, "access scheduler pass failed; retrying"))
        .then(() => this.schedule(this.intervalMs));
    }, delay);
    this.timer.unref();
  }
}
