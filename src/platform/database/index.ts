import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from "kysely";
import pg from "pg";
import { withNamedStatements } from "./pg-statements.js";
import { withStatementCache } from "./statement-cache.js";
import type { DB } from "./tables.js";

export type { DB } from "./tables.js";
export type DialectName = "sqlite" | "postgres";

/** Anything queries can run on: the database itself or an open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;

export interface Database {
  db: Kysely<DB>;
  dialect: DialectName;
  /** The PostgreSQL pool, for LISTEN/NOTIFY; absent on SQLite. */
  pool?: pg.Pool;
  /**
   * SQLite only: a value that changes whenever anything is written to the database, by this
   * connection or any other process, read in about a microsecond without a query through Kysely.
   * In-process caches of rows compare it on every use.
   */
  writeStamp?: () => string;
  close(): Promise<void>;
}

// int8 (counts, sequence numbers) as JS numbers: Steward's values stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

export function openDatabase(url: string): Database {
  if (url.startsWith("sqlite:")) return openSqlite(url.slice("sqlite:".length));
  return openPostgres(url);
}

function openSqlite(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const connection = new SQLite(path);
  connection.pragma("journal_mode = WAL");
  // FULL makes every commit durable before it is acknowledged, also in WAL mode.
  connection.pragma("synchronous = FULL");
  connection.pragma("foreign_keys = ON");
  connection.pragma("busy_timeout = 5000");
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(connection) }) });
  // total_changes(): rows written through this connection; data_version: bumped by commits of
  // every other connection to the same file.
  const stamp = connection.prepare("select total_changes(), data_version from pragma_data_version").raw();
  return {
    db,
    dialect: "sqlite",
    writeStamp: () => (stamp.get() as number[]).join(":"),
    close: () => db.destroy(),
  };
}

function openPostgres(url: string): Database {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A client that loses its server must not crash the process. The pool hears an idle client's
  // error itself; a checked-out client's (the database restarts, a session is killed under a
  // request) would find no listener. Its work fails on its own, the pool drops a client that can
  // no longer query when it comes back, and the next query connects anew.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
  return {
    db,
    dialect: "postgres",
    pool,
    close: () => db.destroy(),
  };
}

export async function ping(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}
