import pg from "pg";
import type { ConnectorConfig } from "./config.js";

/** No connection could be made to a configured server; the cause stays in the operator's log. */
export class Unreachable extends Error {
  override readonly name = "Unreachable";
  constructor(
    readonly server: string,
    cause: unknown,
  ) {
    super(`could not connect to server '${server}'`, { cause });
  }
}

/**
 * Opens one connection per piece of work, to a configured server only, with every timeout set:
 * connecting (until the server is ready for queries), each statement and lock wait on the server,
 * and each answer on the client side (a server that stops answering mid-statement). An abort
 * signal ends the connection at once, whatever it is waiting for.
 */
export class Connections {
  constructor(private readonly config: ConnectorConfig) {}

  async with<T>(serverName: string, signal: AbortSignal, work: (client: pg.Client) => Promise<T>): Promise<T> {
    const server = this.config.servers.get(serverName);
    if (!server) throw new Error(`server '${serverName}' is not configured`);
    const { connectMs, statementMs, lockMs } = this.config.timeouts;
    const { host, port, database, user, password, ssl } = server.connection;
    const client = new pg.Client({
      host,
      port,
      database,
      user,
      password,
      ssl,
      application_name: "steward-connector",
      connectionTimeoutMillis: connectMs,
      statement_timeout: statementMs,
      lock_timeout: lockMs,
      idle_in_transaction_session_timeout: statementMs,
      query_timeout: statementMs + connectMs,
      keepAlive: true,
    });
    // A broken connection also emits 'error'; the rejected query already reports it.
    client.on("error", () => {});
    signal.throwIfAborted();
    const abort = () => void client.end().catch(() => {});
    signal.addEventListener("abort", abort, { once: true });
    try {
      try {
        await client.connect();
      } catch (error) {
        signal.throwIfAborted();
        throw new Unreachable(serverName, error);
      }
      return await work(client);
    } catch (error) {
      signal.throwIfAborted();
      throw error;
    } finally {
      signal.removeEventListener("abort", abort);
      await client.end().catch(() => {});
    }
  }
}

export async function inTransaction<T>(client: pg.Client, work: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
