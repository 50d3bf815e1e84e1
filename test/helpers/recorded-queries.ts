import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, type RootOperationNode } from "kysely";
import type { DB } from "../../src/platform/database/index.js";
import { withNamedStatements } from "../../src/platform/database/drivers/pg-statements.js";
import { testPool, type DatabaseKind } from "./databases.js";

/** `db` with every query sent through it recorded, unchanged, for tests that check what Steward asks the database. */
export function recordingQueries<T>(db: Kysely<T>): { db: Kysely<T>; sent: RootOperationNode[] } {
  const sent: RootOperationNode[] = [];
  return { db: db.withPlugin({ transformQuery: ({ node }) => (sent.push(node), node), transformResult: async ({ result }) => result }), sent };
}

/**
 * A second connection (a pool of `max` on PostgreSQL) to a test database, whose Kysely logs the
 * SQL of every statement it sends, transaction control included: on PostgreSQL each is one round
 * trip. For tests that count what Steward sends, which a plugin cannot see of `begin` and `commit`.
 */
export function loggedConnection(kind: DatabaseKind, url: string, max = 2): { db: Kysely<DB>; statements: string[] } {
  const dialect =
    kind === "postgres"
      ? new PostgresDialect({ pool: withNamedStatements(testPool(url, max)) })
      : new SqliteDialect({ database: new SQLite(url.slice("sqlite:".length)) });
  const statements: string[] = [];
  const db = new Kysely<DB>({ dialect, log: (e) => void (e.level === "query" && statements.push(e.query.sql)) });
  return { db, statements };
}
