import { randomUUID } from "node:crypto";
import type { PostgresListener, Subscription } from "../../platform/database/drivers/pg-listener.js";

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

/**
 * What feeds a KeyLease, on the process's notification listener: the keys channel, and a
 * heartbeat the process sends itself every 100 ms on a channel of its own.
 */
export function keyLeaseFeed(listener: PostgresListener, lease: KeyLease): Subscription {
  const channel = `steward_lease_${randomUUID().replace(/-/g, "")}`;
  let sequence = 0;
  let heartbeat: NodeJS.Timeout | undefined;
  /** Heartbeats in flight: sequence number → when sent. */
  const sent = new Map<number, number>();
  const beat = () => {
    const n = ++sequence;
    // The time is taken before the NOTIFY is even sent, so the heartbeat commits after it.
    sent.set(n, lease.now());
    if (sent.size > 1000) sent.delete(sent.keys().next().value!);
    listener.notify(channel, String(n));
  };
  return {
    channels: [KEYS_CHANNEL, channel],
    notified(from, payload) {
      if (from === KEYS_CHANNEL) return lease.keysChanged();
      const n = Number(payload);
      const sentAt = sent.get(n);
      for (const older of sent.keys()) if (older <= n) sent.delete(older);
      if (sentAt !== undefined) lease.renewed(sentAt);
    },
    connected() {
      heartbeat ??= setInterval(beat, HEARTBEAT_MS);
      heartbeat.unref();
      beat();
    },
    lost() {
      lease.lost();
      clearInterval(heartbeat);
      heartbeat = undefined;
      sent.clear();
    },
  };
}
