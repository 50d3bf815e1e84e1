import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import pg from "pg";
import { parseConnectorConfig } from "../../src/connectors/postgres/config.js";
import { parseMysqlConfig } from "../../src/connectors/mysql/config.js";
import { ROOT } from "../helpers/cli.js";
import { POSTGRES_URL } from "../helpers/databases.js";

/** What the connector tests share: connection settings for the test server, a fresh warehouse database, and cleaning up after it. */

const url = new URL(POSTGRES_URL);
export const q = pg.escapeIdentifier;

/** The test server's own database, where databases and roles are made. */
export const ADMIN_DATABASE = url.pathname.slice(1);

/** Short timeouts, so a test that hangs fails instead of waiting for the defaults. */
const TEST_TIMEOUTS = { connectMs: 10_000, statementMs: 10_000, lockMs: 2_000 };

/** A PostgreSQL connector configuration for one warehouse database, whose `shop` schema `owner` may grant. */
export function pgTestConfig(database: string, owner: string, maskSchema: string) {
  return parseConnectorConfig({
    servers: { warehouse: { connection: pgConnection(database), grantable: [{ team: owner, schema: "shop" }], maskSchema } },
    ledger: { server: "warehouse", schema: "ledger" },
    timeouts: TEST_TIMEOUTS,
  });
}

/** A query as a PostgreSQL login: the value of `v`, or the SQLSTATE of the refusal. */
export async function pgReadAs(database: string, login: string, sql: string): Promise<unknown> {
  const client = new pg.Client(pgConnection(database, login));
  await client.connect();
  try {
    return (await client.query(sql)).rows[0]?.v;
  } catch (error) {
    return { refused: (error as { code: string }).code };
  } finally {
    await client.end();
  }
}

/** The machine's MariaDB, reached as root on its local socket. */
export const MYSQL_SOCKET = process.env.TEST_MYSQL_SOCKET ?? "/run/mysqld/mysqld.sock";

/** A MariaDB identifier, quoted. */
export const mq = (name: string): string => `\`${name.replace(/`/g, "``")}\``;

/** The server entry of a MariaDB connector configuration in which `owner` may grant on database `db`. */
export function mysqlServer(db: string, owner: string, maskSchema: string, extra: Record<string, unknown> = {}) {
  return { connection: { socketPath: MYSQL_SOCKET, user: "root" }, grantable: [{ team: owner, schema: db }], maskSchema, ...extra };
}

/** A MariaDB connector configuration with the ledger in database `ledger`. */
export function mysqlTestConfig(db: string, owner: string, maskSchema: string, ledger: string, extra: Record<string, unknown> = {}) {
  return parseMysqlConfig({ servers: { mariadb: mysqlServer(db, owner, maskSchema, extra) }, ledger: { server: "mariadb", schema: ledger }, timeouts: TEST_TIMEOUTS });
}

/** A query as a MariaDB login (on `localhost`): the value of `v`, or the error number of the refusal. */
export async function mysqlReadAs(login: string, sql: string): Promise<unknown> {
  const client = await mysql.createConnection({ socketPath: MYSQL_SOCKET, user: login });
  try {
    const [rows] = await client.query(sql);
    return (rows as Array<{ v: unknown }>)[0]?.v;
  } catch (error) {
    return { refused: (error as { errno: number }).errno };
  } finally {
    await client.end();
  }
}

/** Connection settings for a database of the test PostgreSQL server, as the connector's configuration and `pg` take them. */
export function pgConnection(database: string, user = decodeURIComponent(url.username) || "postgres") {
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    database,
    user,
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

export interface Warehouse {
  /** A short random mark; databases and roles a test makes carry it, so cleaning up finds them. */
  suffix: string;
  database: string;
  admin: pg.Client;
  db: pg.Client;
  /** A query as a login: the value of `v`, or the SQLSTATE of the refusal. */
  readAs(login: string, sql: string): Promise<unknown>;
  /** Drops the database and every role whose name holds the suffix. */
  drop(): Promise<void>;
}

export async function createWarehouse(prefix: string): Promise<Warehouse> {
  const suffix = randomBytes(3).toString("hex");
  const database = `${prefix}_${suffix}`;
  const admin = new pg.Client(pgConnection(ADMIN_DATABASE));
  await admin.connect();
  await admin.query(`CREATE DATABASE ${q(database)}`);
  const db = new pg.Client(pgConnection(database));
  await db.connect();
  return {
    suffix,
    database,
    admin,
    db,
    readAs: (login, sql) => pgReadAs(database, login, sql),
    async drop() {
      await db.end();
      await admin.query(`DROP DATABASE IF EXISTS ${q(database)} WITH (FORCE)`);
      // Members first: a role still held by a login cannot always be dropped before it.
      const roles = await admin.query<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE rolname LIKE $1 ORDER BY rolname LIKE 'steward%'", [`%${suffix}%`]);
      for (const { rolname } of roles.rows) await admin.query(`DROP ROLE IF EXISTS ${q(rolname)}`);
      await admin.end();
    },
  };
}

/**
 * Starts `steward <args>` from source, waits until `waiting()` says it is blocked where the test
 * wants it (a lock the test holds), and kills it with SIGKILL: a crash at that very statement.
 */
export async function killWhileWaiting(args: string[], env: Record<string, string>, waiting: () => Promise<boolean>, limitMs = 90_000): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  let exitCode: number | null | undefined;
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve((exitCode = code))));
  try {
    const deadline = Date.now() + limitMs;
    let blocked = false;
    while (!blocked && exitCode === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      blocked = await waiting();
    }
    if (!blocked) throw new Error(`the connector never reached the blocked statement (exit code ${exitCode}): ${stderr.slice(-2000)}`);
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}
