import type SQLite from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

/** Statements kept at most; a query that builds its SQL from variable-length lists cannot fill memory. */
const CAPACITY = 500;

interface Kept {
  statement: SQLite.Statement;
  /** When it was last handed out, in calls of `prepare`: the least recent is forgotten first. */
  used: number;
}

/**
 * The better-sqlite3 connection as Kysely's SQLite dialect sees it, with prepared statements kept
 * by their SQL text. Kysely prepares every query anew, and compiling a statement costs more than
 * running most of Steward's (a request's few lookups and writes are the same few dozen statements
 * over and over). A statement that is still being iterated cannot run again, so a busy one is not
 * reused: the query gets a fresh statement of its own.
 *
 * A hit only stamps its entry. Moving it to the end of the map instead (delete, then set) made the
 * map build itself a new table every few dozen calls, and what the scavenges then kept alive and
 * moved into the old generation as garbage came to about 95 bytes per synchronized asset, a few
 * queries (bench/HISTORY.md, "Garbage promoted by three patterns").
 */
export function withStatementCache(connection: SQLite.Database, capacity = CAPACITY): SqliteDatabase {
  const statements = new Map<string, Kept>();
  let calls = 0;
  return {
    close: () => void connection.close(),
    prepare(text: string) {
      const kept = statements.get(text);
      if (kept && !kept.statement.busy) {
        kept.used = ++calls;
        return kept.statement;
      }
      const statement = connection.prepare(text);
      if (!kept) {
        if (statements.size >= capacity) forgetLeastRecent(statements);
        statements.set(text, { statement, used: ++calls });
      }
      return statement;
    },
  };
}

/** Runs only when the cache is full, which Steward's few dozen statements never make it. */
function forgetLeastRecent(statements: Map<string, Kept>): void {
  let oldest: string | undefined;
  let least = Number.POSITIVE_INFINITY;
  for (const [text, { used }] of statements) {
    if (used < least) {
      least = used;
      oldest = text;
    }
  }
  if (oldest !== undefined) statements.delete(oldest);
}
