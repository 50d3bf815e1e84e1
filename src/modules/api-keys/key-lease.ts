import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import pg from "pg";

/** How long a heartbeat that came back lets this process trust what it remembers. */
export const LEASE_MS = 250;
/** How often the process sends itself a heartbeat through PostgreSQL. */
const HEARTBEAT_MS = 100;
/** Channel of the `api_keys` trigger (migration 0090). */
export const KEYS_CHANNEL = "steward_api_keys";

/**
 * PostgreSQL: whether this process may use the API keys it remembers, so that a revocation counts on
 * the very next request in every process without a lookup per request.
 *
 * Every change to a key is announced by a trigger on one channel; each process also sends itself a
 * heartbeat NOTIFY every 100 ms on a channel of its own. PostgreSQL delivers notifications in the
 * order their transactions committed, so a heartbeat sent after a revocation committed arrives
 * after that revocation's notification. A heartbeat sent at time H (this process's monotonic
 * clock), once it is back, grants a lease until H + 250 ms; remembered keys are used only inside
 * the lease. The API answers a revocation only 250 ms after it committed. A request that reaches
 * any process after that answer, at time T, finds either no lease (nothing is used from memory)
 * or a lease from a heartbeat sent after T − 250 ms, i.e. after the revocation committed, and so
 * delivered after its notification, which had already emptied the memory. Only durations on one
 * clock are compared, so clocks of different machines need not agree.
 *
 * A lost listener connection ends the lease at once; a process whose heartbeats are slow (busy
 * event loop, slow database) simply looks keys up until they are quick again.
 */
export class KeyLease {
  private epoch = 0;
  private until = -Infinity;

  constructor(readonly now: () => number = () => performance.now()) {}

  /** What the key cache compares: changes whenever keys changed; undefined outside the lease. */
  stamp(): string | undefined {
    return this.now() < this.until ? String(this.epoch) : undefined;
  }

  keysChanged(): void {
    this.epoch++;
  }

  /** A heartbeat sent at `sentAt` (this clock) came back. */
  renewed(sentAt: number): void {
    this.until = Math.max(this.until, sentAt + LEASE_MS);
  }

  lost(): void {
    this.until = -Infinity;
    this.epoch++;
  }
}

/** The connection that feeds a KeyLease: LISTENs on the keys channel and sends the heartbeats. */
export class KeyLeaseListener {
  private client?: pg.Client;
  private heartbeat?: NodeJS.Timeout;
  private retry?: NodeJS.Timeout;
  private stopped = false;
  private sequence = 0;
  /** Heartbeats in flight: sequence number → when sent. */
  private readonly sent = new Map<number, number>();
  private readonly channel = `steward_lease_${randomUUID().replace(/-/g, "")}`;

  constructor(
    private readonly connectionString: string,
    private readonly lease: KeyLease,
    private readonly logger: FastifyBaseLogger,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on("notification", (message) => {
      if (message.channel === KEYS_CHANNEL) this.lease.keysChanged();
      else if (message.channel === this.channel) {
        const sequence = Number(message.payload);
        const sentAt = this.sent.get(sequence);
        for (const older of this.sent.keys()) if (older <= sequence) this.sent.delete(older);
        if (sentAt !== undefined) this.lease.renewed(sentAt);
      }
    });
    client.on("error", (error) => {
      this.lease.lost();
      this.logger.warn({ err: error }, "API key listener connection lost; keys are looked up on every request until it is back");
      this.reconnectSoon();
    });
    await client.connect();
    // A heartbeat is a transaction (NOTIFY takes a transaction id): it need not wait for a WAL
    // flush, which leaves the order of notifications as it is.
    await client.query("SET synchronous_commit = off");
    await client.query(`LISTEN ${KEYS_CHANNEL}`);
    await client.query(`LISTEN ${this.channel}`);
    this.client = client;
    this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.beat();
  }

  private beat(): void {
    const client = this.client;
    if (!client) return;
    const sequence = ++this.sequence;
    // The time is taken before the NOTIFY is even sent, so the heartbeat commits after it.
    this.sent.set(sequence, this.lease.now());
    if (this.sent.size > 1000) this.sent.delete(this.sent.keys().next().value!);
    client.query("select pg_notify($1, $2)", [this.channel, String(sequence)]).catch(() => {});
  }

  private reconnectSoon(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const old = this.client;
    this.client = undefined;
    this.sent.clear();
    old?.end().catch(() => {});
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopped) this.start().catch(() => this.reconnectSoon());
    }, 1000);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.lease.lost();
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.retry) clearTimeout(this.retry);
    await this.client?.end().catch(() => {});
  }
}
