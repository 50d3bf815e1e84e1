import { MAX_BATCH } from "../log.js";
import type { RenderedBatch } from "../repository.js";

/**
 * A consumer catching up asks, batch after batch, for "the events after the last one you sent
 * me". Once a batch was full, the next one is fixed: positions follow commit order and the log
 * only grows at its end, so the 1000 events after a full batch can no longer change. Reading them
 * while the consumer is still receiving the previous batch hides the database read, and rendering
 * it then takes that work off the next request too. Only full batches are read ahead, and the
 * feed never serves an empty batch read ahead, so a consumer at the end of the log always gets a
 * fresh read; at most `capacity` batches are held, each for `ttlMs`.
 */
export class ReadAhead {
  /** In the order they were started, which is also the order they expire in. */
  private readonly batches = new Map<string, { batch: Promise<RenderedBatch>; expires: number }>();

  constructor(
    private readonly read: (organizationId: string, afterSeq: number) => Promise<RenderedBatch>,
    private readonly capacity = 16,
    private readonly ttlMs = 10_000,
  ) {}

  /**
   * The batch after `lastEventId`, if it was read ahead; undefined otherwise, or if that read
   * failed. The caller owns it from then on, its `release` included.
   */
  async take(organizationId: string, lastEventId: string): Promise<RenderedBatch | undefined> {
    this.forgetExpired();
    const key = `${organizationId}\n${lastEventId}`;
    const held = this.batches.get(key);
    if (!held) return undefined;
    this.batches.delete(key);
    return held.batch.catch(() => undefined);
  }

  /** Called with each batch served: a full one starts the read of the next. */
  served(organizationId: string, batch: RenderedBatch): void {
    if (batch.count < MAX_BATCH) return;
    const key = `${organizationId}\n${batch.lastId}`;
    this.forgetExpired();
    if (this.batches.has(key)) return;
    if (this.batches.size >= this.capacity) this.drop(this.batches.keys().next().value!);
    // After the current response is on its way, not before.
    const next = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.read(organizationId, batch.lastSeq));
    next.catch(() => {});
    this.batches.set(key, { batch: next, expires: Date.now() + this.ttlMs });
  }

  /** Held batches are dropped here rather than by timers, which would keep each batch alive for the whole TTL. */
  private forgetExpired(): void {
    const now = Date.now();
    for (const [key, batch] of this.batches) {
      if (batch.expires > now) return;
      this.drop(key);
    }
  }

  /** Forgets a batch nobody took, giving back the buffer it may have been lent. */
  private drop(key: string): void {
    const held = this.batches.get(key);
    this.batches.delete(key);
    held?.batch.then((batch) => batch.release?.(), () => {});
  }
}
