import type { ApiKeyRow } from "./repository.js";

/** Keys remembered at most; past it the oldest is forgotten. Only keys that exist are kept. */
const CAPACITY = 10_000;

/**
 * API keys already looked up, by secret hash, so an authenticated request need not query the
 * database for its key. The cache is told by a stamp when what it holds may be stale: every use
 * compares the stamp, and any change forgets every key; while the stamp is undefined nothing is
 * used or remembered.
 * - SQLite: the database's counter of key changes (migration 0092), which triggers on
 *   `api_keys` move whenever a key is revoked, deleted or changes what it may do, whoever wrote
 *   it; other writes (documents, events, recording a key's use) leave remembered keys alone.
 * - PostgreSQL: the key lease (key-lease.ts): changes when any process changes a key, and is
 *   undefined whenever this process cannot be sure it has heard of every change in time.
 * A revoked key is therefore refused on the very next request, in every process; expiry is
 * checked on every use against the clock.
 */
export class KeyCache {
  private readonly rows = new Map<string, ApiKeyRow>();
  private stamp: string | undefined;

  constructor(private readonly currentStamp: (() => string | undefined) | undefined) {}

  /** The key row for `hash`, if remembered and nothing changed since. */
  get(hash: string): ApiKeyRow | undefined {
    const now = this.currentStamp?.();
    if (now === undefined) return undefined;
    this.forgetIfChanged(now);
    return this.rows.get(hash);
  }

  /** What the cache must compare after a lookup: the stamp before it. */
  mark(): string | undefined {
    return this.currentStamp?.();
  }

  /** Remembers a row read after `mark`, unless something changed since (the row may be stale). */
  remember(hash: string, row: ApiKeyRow, mark: string | undefined): void {
    const now = this.currentStamp?.();
    if (now === undefined || mark === undefined || now !== mark) return;
    this.forgetIfChanged(now);
    if (this.rows.size >= CAPACITY) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(hash, row);
  }

  /** Forgets every key (after this process changed one itself; the stamp would say so too). */
  forgetAll(): void {
    this.rows.clear();
  }

  private forgetIfChanged(now: string): void {
    if (now === this.stamp) return;
    this.rows.clear();
    this.stamp = now;
  }
}
