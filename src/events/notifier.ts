import pg from "pg";
import type { FastifyBaseLogger } from "fastify";
import type { EventLog } from "./log.js";
import { NOTIFY_CHANNEL } from "./repository.js";

/**
 * Relays PostgreSQL NOTIFYs about committed events into the log's in-process wake-ups, so a long
 * poll held by this process answers when any Steward process sharing the database commits.
 * One connection per process, however many requests are waiting.
 */
export class PostgresCommitListener {
  private client?: pg.Client;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly connectionString: string,
    private readonly log: EventLog,
    private readonly logger: FastifyBaseLogger,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on("notification", (message) => {
      if (message.channel === NOTIFY_CHANNEL && message.payload) this.log.commits.emit(message.payload);
    });
    client.on("error", (error) => {
      this.logger.warn({ err: error }, "event listener connection lost; reconnecting");
      this.reconnectSoon();
    });
    await client.connect();
    await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    this.client = client;
  }

  private reconnectSoon(): void {
    const old = this.client;
    this.client = undefined;
    old?.end().catch(() => {});
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.stopped) return;
      // Waiters re-read on wake; one spurious wake-up after a reconnect covers anything missed meanwhile.
      this.start()
        .then(() => this.log.commits.emit("*"))
        .catch(() => this.reconnectSoon());
    }, 1000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    await this.client?.end().catch(() => {});
  }
}
