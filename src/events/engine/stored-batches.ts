import type { Database } from "../../platform/database/index.js";
import type { FeedCache } from "./feed-cache.js";
import type { RenderedBatch } from "../repository.js";
import { storedBatchRepository, type StoredBatchAhead, type StoredBatchEntry } from "./stored-batch-repository.js";

/** Stored batches looked up at once when the feed cache looks in the database. */
const LOOK_AHEAD = 64;
/** Entries this process remembers (about 150 bytes each); past it, it forgets them all and looks again. */
const MAX_REMEMBERED = 100_000;

/**
 * The feed's stored batches of one rendering (docs/events.md, "Catching up: stored batches"):
 * where they are, and their bodies. Without the feed cache each look is one query that also
 * returns the body when a batch starts at the position. With it (FEED_CACHE_DIR), where batches
 * start is remembered, since a stored batch never changes, and bodies are read from files: a
 * consumer reading from one stored batch to the next then costs the database nothing.
 */
export class StoredBatches {
  /** Per organization, the stored batches this process has seen, by the position they follow. */
  private readonly known = new Map<string, Map<number, StoredBatchEntry>>();
  private remembered = 0;

  constructor(
    private readonly database: Database,
    readonly rendering: string,
    readonly cache?: FeedCache,
    private readonly maxRemembered = MAX_REMEMBERED,
  ) {}

  /** The first stored batch that ends after a position, with its body when it starts there. */
  async ahead(organizationId: string, afterSeq: number): Promise<StoredBatchAhead | undefined> {
    const { db } = this.database;
    if (!this.cache) return storedBatchRepository.ahead(db, organizationId, this.rendering, afterSeq);
    let entry = this.known.get(organizationId)?.get(afterSeq);
    if (!entry) {
      const entries = await storedBatchRepository.aheadList(db, organizationId, this.rendering, afterSeq, LOOK_AHEAD);
      if (entries.length === 0) return undefined;
      for (const found of entries) this.remember(organizationId, found);
      if (entries[0].afterSeq !== afterSeq) return { afterSeq: entries[0].afterSeq, lastSeq: entries[0].lastSeq };
      entry = entries[0];
    }
    const key = { organizationId, afterSeq, lastId: entry.lastId, rendering: this.rendering, bytes: entry.bytes };
    const { count, lastSeq, lastId } = entry;
    const cached = this.cache.read(key);
    if (cached) return { afterSeq, lastSeq, batch: { count, lastSeq, lastId, body: cached.body, release: cached.release } };
    const body = await storedBatchRepository.body(db, organizationId, this.rendering, afterSeq);
    // Gone, or replaced by another rendering since it was seen: the database answers afresh.
    if (!body) {
      if (this.known.get(organizationId)?.delete(afterSeq)) this.remembered--;
      return storedBatchRepository.ahead(db, organizationId, this.rendering, afterSeq);
    }
    this.cache.write(key, body);
    return { afterSeq, lastSeq, batch: { count, lastSeq, lastId, body } };
  }

  /** The position the organization's stored batches reach (0 when none is stored). */
  end(organizationId: string): Promise<number> {
    return storedBatchRepository.end(this.database.db, organizationId, this.rendering);
  }

  /** Stores a full batch (another process may have stored it first), and writes its file. */
  async store(organizationId: string, afterSeq: number, batch: RenderedBatch): Promise<void> {
    const { db, dialect } = this.database;
    await storedBatchRepository.store(db, dialect, organizationId, this.rendering, afterSeq, batch);
    if (!this.cache) return;
    const entry = { afterSeq, lastSeq: batch.lastSeq, lastId: batch.lastId!, count: batch.count, bytes: batch.body.length };
    this.remember(organizationId, entry);
    this.cache.write({ organizationId, afterSeq, lastId: entry.lastId, rendering: this.rendering, bytes: entry.bytes }, batch.body);
  }

  private remember(organizationId: string, entry: StoredBatchEntry): void {
    let entries = this.known.get(organizationId);
    if (!entries) this.known.set(organizationId, (entries = new Map()));
    if (entries.has(entry.afterSeq)) return;
    if (this.remembered >= this.maxRemembered) {
      this.known.clear();
      this.remembered = 0;
      this.known.set(organizationId, (entries = new Map()));
    }
    entries.set(entry.afterSeq, entry);
    this.remembered++;
  }
}
