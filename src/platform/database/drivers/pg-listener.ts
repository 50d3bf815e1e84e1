import type { FastifyBaseLogger } from "fastify";
import pg from "pg";

/** How many notifications may wait for the connection at once. */
const MAX_WAITING = 100;

/** Something that waits on PostgreSQL notifications. */
export interface Subscription {
  channels: readonly string[];
  notified(channel: string, payload: string): void;
  /** The connection is gone: whatever arrives meanwhile is lost. */
  lost?(): void;
  /** The connection is up and listening (at start, and again after every reconnect). */
  connected?(): void;
}

/**
 * The one LISTEN connection of a process, shared by all that wait on notifications (commits of
 * events, changes of API keys), however many requests are waiting. A lost connection is reported
 * to every subscriber and re-made a second later.
 */
export class PostgresListener {
  private client?: pg.Client;
  private stopped = false;
  private retry?: NodeJS.Timeout;
  private readonly subscriptions: Subscription[] = [];
  /** The last notification sent: each waits for the one before, so one connection never runs two queries at once. */
  private sending: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(
    private readonly connectionString: string,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** Subscribes before `start`. */
  subscribe(subscription: Subscription): void {
    this.subscriptions.push(subscription);
  }

  /**
   * Sends a notification on this connection, in a transaction of its own. It is delivered after
   * every notification of a transaction that committed before it was sent. While the database
   * stalls, at most MAX_WAITING notifications wait; later ones are dropped (a heartbeat not sent
   * is a lease not renewed, never a wrong one).
   */
  notify(channel: string, payload: string): void {
    const client = this.client;
    if (!client || this.waiting >= MAX_WAITING) return;
    this.waiting++;
    this.sending = this.sending
      .then(() => client.query("select pg_notify($1, $2)", [channel, payload]))
      .catch(() => {})
      .finally(() => this.waiting--);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on("notification", (message) => {
      for (const s of this.subscriptions) if (s.channels.includes(message.channel)) s.notified(message.channel, message.payload ?? "");
    });
    client.on("error", (error) => {
      this.logger.warn({ err: error }, "notification listener connection lost; reconnecting");
      this.reconnectSoon();
    });
    await client.connect();
    // What this connection sends itself needs no WAL flush; the order of notifications stays.
    await client.query("SET synchronous_commit = off");
    for (const channel of new Set(this.subscriptions.flatMap((s) => s.channels))) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    this.client = client;
    for (const s of this.subscriptions) s.connected?.();
  }

  private reconnectSoon(): void {
    const old = this.client;
    this.client = undefined;
    if (old) for (const s of this.subscriptions) s.lost?.();
    old?.end().catch(() => {});
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopped) this.start().catch(() => this.reconnectSoon());
    }, 1000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    for (const s of this.subscriptions) s.lost?.();
    await client?.end().catch(() => {});
  }
}
