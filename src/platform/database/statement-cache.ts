import type SQLite from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

/** Statements kept at most; a query that builds its SQL from variable-length lists cannot fill memory. */
const CAPACITY = 500;

/**
 * The better-sqlite3 connection as Kysely's SQLite dialect sees it, with prepared statements kept
 * by their SQL text. Kysely prepares every query anew, and compiling a statement costs more than
 * running most of Steward's (a request's few lookups and writes are the same few dozen statements
 * over and over). A statement that is still being iterated cannot run again, so a busy one is not
 * reused: the query gets a fresh statement of its own.
 */
export function withStatementCache(connection: SQLite.Database, capacity = CAPACITY): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => void connection.close(),
    prepare(text: string) {
      const kept = statements.get(text);
      if (kept && !kept.busy) {
        // Map order is insertion order: moving a used statement to the end makes eviction least-recently-used.
        statements.delete(text);
        statements.set(text, kept);
        return kept;
      }
      const statement = connection.prepare(text);
      if (!kept) {
        if (statements.size >= capacity) statements.delete(statements.keys().next().value!);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}
