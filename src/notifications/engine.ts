import type { FastifyBaseLogger } from "fastify";
import type { EventLog } from "../events/log.js";
import type { Clock } from "../platform/clock.js";
import type { Config } from "../platform/config.js";
import type { Database } from "../platform/database/index.js";
import { PeriodicTask } from "../platform/periodic.js";
import { Deliverer } from "./deliverer.js";
import { Deriver } from "./deriver.js";
import { createMailer, type Mailer } from "./mailer.js";

const REMINDER_INTERVAL_MS = 60_000;

/**
 * Notifications in the background of every Steward process (docs/notifications.md): each pass
 * derives notifications from events committed since the last one, then starts the deliveries
 * that are due. Nothing here runs in a request.
 */
export class NotificationEngine {
  readonly deriver: Deriver;
  readonly deliverer: Deliverer;
  readonly mailer: Mailer | undefined;
  private periodic?: PeriodicTask;
  /** When reminders were last looked for (process time, ms); they are looked for once a minute. */
  private remindedAt = Number.NEGATIVE_INFINITY;

  constructor(
    database: Database,
    events: EventLog,
    private readonly config: Config,
    clock: Clock,
  ) {
    this.mailer = createMailer(config.smtpUrl, config.smtpFrom, config.notify.timeoutMs);
    const now = () => clock.now();
    this.deriver = new Deriver(database, { appUrl: config.appUrl, mail: this.mailer !== undefined, render: (row) => JSON.parse(events.renderBatch([row]))[0] }, now);
    this.deliverer = new Deliverer(database, config.notify, config.outbound, this.mailer, now);
  }

  /** One pass: derive, then start what is due (tests call it instead of waiting for the timer). */
  async pass(): Promise<void> {
    // Delivery starts with the first events derived, and goes on beside the rest.
    const deliver = () => void this.deliverer.pump().catch((error) => this.deliverer.logger?.error({ err: error }, "looking for due notifications failed; the next pass retries"));
    await this.deriver.pass(() => this.periodic?.stopping ?? false, deliver);
    if (performance.now() - this.remindedAt >= REMINDER_INTERVAL_MS) {
      this.remindedAt = performance.now();
      await this.deriver.reminders();
    }
    await this.deliverer.pump();
  }

  start(logger: FastifyBaseLogger): void {
    if (!this.mailer) logger.info("E-mail notifications are off: set SMTP_URL and SMTP_FROM to send them.");
    this.deliverer.logger = logger;
    this.periodic = new PeriodicTask(() => this.pass(), this.config.notify.pollMs, (error) => logger.error({ err: error }, "notification pass failed; retrying"));
    this.periodic.start();
  }

  async stop(): Promise<void> {
    await this.periodic?.stop();
    await this.deliverer.stop();
    this.mailer?.close();
  }
}
