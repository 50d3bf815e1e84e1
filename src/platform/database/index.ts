import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from "kysely";
import pg from "pg";
import { withNamedStatements } from "./drivers/pg-statements.js";
import { withWriteBehind } from "./drivers/pg-write-behind.js";
import { withStatementCache } from "./drivers/statement-cache.js";
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
   * SQLite only: a value that changes whenever what an API key may do changes (migration 0092),
   * through this connection or any other process, read in about a microsecond without a query
   * through Kysely; undefined before that migration. The key cache compares it on every use.
   */
  keyStamp?: () => string | undefined;
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
  // Prepared on first use: the counter's table exists only once migrations ran.
  let stamp: SQLite.Statement | undefined;
  const keyStamp = () => {
    try {
      stamp ??= connection.prepare("select generation from api_key_changes").pluck();
      // Without its one row the counter cannot move: then nothing may be remembered.
      const generation = stamp.get();
      return typeof generation === "number" ? String(generation) : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    db,
    dialect: "sqlite",
    keyStamp,
    close: () => db.destroy(),
  };
}

type ConnectCallback = ((err: Error) => void) | ((err: null, client: pg.Client) => void);

/**
 * A client whose failure to connect always reaches the pool's callback. A socket that cannot even
 * be opened (a port out of range) throws at once instead; the pool then still counts the client,
 * its `end()` never settles, and a command waiting to close the database exits silently, with 0,
 * instead of reporting the error.
 */
class ReportingClient extends pg.Client {
  override connect(): Promise<pg.Client>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.Client> | void {
    if (!callback) return super.connect();
    try {
      super.connect(callback);
    } catch (error) {
      process.nextTick(() => (callback as (err: Error) => void)(error instanceof Error ? error : new Error(String(error))));
    }
  }
}

function openPostgres(url: string): Database {
  const pool = new pg.Pool({ connectionString: url, max: 10, Client: ReportingClient });
  // A client that loses its server must not crash the process. The pool hears an idle client's
  // error itself; a checked-out client's (the database restarts, a session is killed under a
  // request) would find no listener. Its work fails on its own, the pool drops a client that can
  // no longer query when it comes back, and the next query connects anew.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: withWriteBehind(withNamedStatements(pool)) }) });
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
