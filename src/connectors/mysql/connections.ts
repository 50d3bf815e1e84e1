import mysql from "mysql2/promise";
import { KeptConnections, Unreachable } from "../kept-connections.js";
import type { MysqlConfig } from "./config.js";

/** No connection could be made to a configured MySQL or MariaDB server. */
export class MysqlUnreachable extends Unreachable {
  override readonly name = "MysqlUnreachable";
}

export type Run = (sql: string, values?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** A connection and how to run a statement on it, with the client-side deadline of each answer. */
interface Session {
  connection: mysql.Connection;
  run: Run;
}

/** The socket under mysql2's promise wrapper, to let an idle connection not keep the process alive. */
const socketOf = (session: Session) => (session.connection as unknown as { connection?: { stream?: { ref(): void; unref(): void } } }).connection?.stream;

/**
 * Connections to the configured servers only, with every timeout set: connecting, each statement
 * on the server (MariaDB `max_statement_time`, MySQL `max_execution_time`), lock waits, and a
 * client-side deadline per answer. An abort signal destroys the connection at once. One
 * connection per server is kept open between pieces of work (../kept-connections.ts).
 */
export class MysqlConnections {
  private readonly kept: KeptConnections<Session>;

  constructor(config: MysqlConfig) {
    this.kept = new KeptConnections<Session>({
      open: (server, signal) => open(config, server, signal),
      end: (session) => session.connection.end().catch(() => session.connection.destroy()),
      destroy: (session) => session.connection.destroy(),
      // The connector's statements on MySQL commit one by one: no transaction is ever left open.
      reusable: () => true,
      // mysql2 marks the errors that end a connection as fatal.
      lost: (error) => (error as { fatal?: unknown } | null)?.fatal === true,
      onEnd: (session, listener) => void session.connection.once("end", listener),
      hold: (session, held) => (held ? socketOf(session)?.ref() : socketOf(session)?.unref()),
    });
  }

  with<T>(server: string, signal: AbortSignal, work: (run: Run) => Promise<T>): Promise<T> {
    return this.kept.with(server, signal, (session) => work(session.run));
  }

  close(): Promise<void> {
    return this.kept.close();
  }
}

async function open(config: MysqlConfig, serverName: string, signal: AbortSignal): Promise<Session> {
  const server = config.servers.get(serverName);
  if (!server) throw new Error(`server '${serverName}' is not configured`);
  const { connectMs, statementMs, lockMs } = config.timeouts;
  let connection: mysql.Connection;
  try {
    const { ssl, ...rest } = server.connection;
    connection = await mysql.createConnection({ ...rest, ...(ssl ? { ssl: {} } : {}), connectTimeout: connectMs, multipleStatements: false, supportBigNumbers: true });
  } catch (error) {
    signal.throwIfAborted();
    throw new MysqlUnreachable(serverName, error);
  }
  connection.on("error", () => {});
  const run: Run = async (sql, values) => {
    const [rows] = await connection.query({ sql, values, timeout: statementMs + connectMs });
    return Array.isArray(rows) ? (rows as Array<Record<string, unknown>>) : [];
  };
  const abort = () => connection.destroy();
  signal.addEventListener("abort", abort, { once: true });
  try {
    const lockSeconds = Math.max(1, Math.ceil(lockMs / 1000));
    await run(`SET SESSION lock_wait_timeout = ${lockSeconds}, SESSION innodb_lock_wait_timeout = ${lockSeconds}`);
    await run(`SET SESSION max_statement_time = ${statementMs / 1000}`).catch(() => run(`SET SESSION max_execution_time = ${statementMs}`));
    return { connection, run };
  } catch (error) {
    await connection.end().catch(() => connection.destroy());
    signal.throwIfAborted();
    throw error;
  } finally {
    signal.removeEventListener("abort", abort);
  }
}
