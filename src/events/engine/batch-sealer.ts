import { createHash } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { FastifyBaseLogger } from "fastify";
import type { Database } from "../../platform/database/index.js";
import { eventRepository, type EnvelopeParts, type RenderedBatch } from "../repository.js";
import type { StoredBatches } from "./stored-batches.js";

/**
 * Bumped whenever the rendering of an envelope changes (`eventRepository.readRendered`): batches
 * stored by an older version are then no longer served, and are stored again as the new one renders.
 */
const RENDERING = 1;

/**
 * Names one way of rendering batches: the envelope's configured parts, the rendering's version and
 * the batch size. A stored batch is served only to a process that renders exactly the same way.
 */
export function renderingKey(parts: EnvelopeParts, batchSize: number): string {
  return createHash("sha256").update(JSON.stringify([RENDERING, batchSize, parts])).digest("base64url").slice(0, 22);
}

/**
 * Stores the feed's full batches as they were rendered (docs/events.md, "Catching up: stored
 * batches"). A consumer that catches up asks for the batch after the last one it received, so
 * from the start of the log it asks for exactly these, and each costs one row instead of a
 * thousand rendered.
 *
 * A full batch never changes once it can be read: within an organization positions follow commit
 * order and the log only grows at its end (the same reason the read-ahead may read it early). So a
 * batch is stored only once it is full, and then for good.
 *
 * Every `batchSize` events an organization appends in this process start a run that stores each
 * of its full batches not yet stored, oldest first, one per turn of the event loop so requests
 * keep being served. Another process sharing the database stores its own appends' batches the
 * same way; when two store the same batch, the second changes nothing. `start` sweeps every
 * organization once, for batches of events appended while no process stored them (a log written
 * before this existed, or a change of `APP_URL`). A batch that could not be stored is rendered from
 * its rows, as before, and stored by the next run.
 */
export class BatchSealer {
  /** Events appended in this process, per organization, since its last run started. */
  private readonly appendedSince = new Map<string, number>();
  private readonly running = new Map<string, Promise<void>>();
  /** Organizations that appended a batch's worth more while their run was going: it runs again. */
  private readonly again = new Set<string>();
  private sweeping: Promise<void> = Promise.resolve();
  private stopped = false;
  private logger: FastifyBaseLogger | undefined;

  constructor(
    private readonly database: Database,
    private readonly stored: StoredBatches,
    private readonly batchSize: number,
    /** Renders the batch after a position from the rows, never from a stored batch. */
    private readonly render: (organizationId: string, afterSeq: number) => Promise<RenderedBatch>,
  ) {}

  /** Told after each commit how many events an organization appended in it. */
  appended(organizationId: string, count: number): void {
    const since = (this.appendedSince.get(organizationId) ?? 0) + count;
    if (since < this.batchSize) {
      this.appendedSince.set(organizationId, since);
      return;
    }
    this.appendedSince.delete(organizationId);
    this.seal(organizationId).catch(() => {});
  }

  /** Looks at every organization once, in the background; from now on failures are logged. */
  start(logger: FastifyBaseLogger): void {
    this.logger = logger;
    this.sweeping = (async () => {
      for (const organizationId of await eventRepository.organizationIds(this.database.db)) {
        if (this.stopped) return;
        await this.seal(organizationId).catch(() => {});
      }
    })().catch(() => {});
  }

  /** Stops storing and waits for the batch being stored, so the database can be closed. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([this.sweeping, ...this.running.values()]);
  }

  /** Stores every full batch of the organization not stored yet; resolves when none is left. */
  seal(organizationId: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const current = this.running.get(organizationId);
    if (current) {
      // The run going now may have looked before the latest events committed: one more follows it.
      this.again.add(organizationId);
      return current.catch(() => {}).then(() => this.running.get(organizationId));
    }
    const run = this.storeFullBatches(organizationId)
      .catch((error: unknown) => {
        this.logger?.warn({ err: error, organizationId }, "could not store the feed's batches; they are rendered from the events until the next try");
        throw error;
      })
      .finally(() => {
        this.running.delete(organizationId);
        if (this.again.delete(organizationId) && !this.stopped) this.seal(organizationId).catch(() => {});
      });
    this.running.set(organizationId, run);
    return run;
  }

  private async storeFullBatches(organizationId: string): Promise<void> {
    const { db } = this.database;
    let after = await this.stored.end(organizationId);
    // Whether a full batch follows is looked up in the index first: most runs end with fewer than a
    // batch's events left, and the start-up look finds that for most organizations.
    while (!this.stopped && (await eventRepository.atLeastAfter(db, organizationId, after, this.batchSize))) {
      const batch = await this.render(organizationId, after);
      // The rule itself, whatever the look above saw: only a full batch is stored.
      if (batch.count < this.batchSize) return;
      await this.stored.store(organizationId, after, batch);
      after = batch.lastSeq;
      await nextTurn();
    }
  }
}
