import type { ApiKeyRow } from "./repository.js";

/** Keys remembered at most; past it the oldest is forgotten. Only keys that exist are kept. */
const CAPACITY = 10_000;

/**
 * API keys already looked up, by secret hash, so an authenticated request need not query the
 * database for its key. Valid only while the database has not been written to: every use first
 * compares the database's write stamp (SQLite: this connection's change count and the file's data
 * version, which other processes' commits bump), and any write at all — a revocation among them,
 * from this process or another — forgets every key. A revoked key is therefore refused on the very
 * next request, in every process; expiry is checked on every use against the clock. Without a
 * write stamp (PostgreSQL, where checking anything costs the same round trip as the lookup
 * itself) nothing is cached.
 */
export class KeyCache {
  private readonly rows = new Map<string, ApiKeyRow>();
  private stamp = "";

  constructor(private readonly writeStamp: (() => string) | undefined) {}

  /** The key row for `hash`, if remembered and nothing was written since. */
  get(hash: string): ApiKeyRow | undefined {
    if (!this.writeStamp) return undefined;
    this.forgetIfWritten();
    return this.rows.get(hash);
  }

  /** What the cache must compare after a lookup: the stamp before it. */
  mark(): string | undefined {
    return this.writeStamp?.();
  }

  /** Remembers a row read after `mark`, unless something was written since (the row may be stale). */
  remember(hash: string, row: ApiKeyRow, mark: string | undefined): void {
    if (!this.writeStamp || mark === undefined || this.writeStamp() !== mark) return;
    this.forgetIfWritten();
    if (this.rows.size >= CAPACITY) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(hash, row);
  }

  private forgetIfWritten(): void {
    const now = this.writeStamp!();
    if (now === this.stamp) return;
    this.rows.clear();
    this.stamp = now;
  }
}
