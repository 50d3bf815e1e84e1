import pg from "pg";
import { KeptConnections, Unreachable } from "../kept-connections.js";
import type { ConnectorConfig } from "./config.js";

export { Unreachable };

/** pg's client has `ref` and `unref` (on its socket) that its type declarations leave out. */
const socketOf = (client: pg.Client) => client as unknown as { ref(): void; unref(): void };

/**
 * Connections to the configured servers only, each with every timeout set: connecting (until the
 * server is ready for queries), each statement and lock wait on the server, and each answer on
 * the client side (a server that stops answering mid-statement). An abort signal ends the
 * connection at once, whatever it is waiting for. One connection per server is kept open between
 * pieces of work (../kept-connections.ts).
 */
export class Connections extends KeptConnections<pg.Client> {
  constructor(config: ConnectorConfig) {
    super({
      open: (server, signal) => open(config, server, signal),
      end: (client) => client.end().catch(() => {}),
      destroy: (client) => void client.end().catch(() => {}),
      // Work that failed inside a transaction leaves it open: such a connection is not reused.
      reusable: (client) => client.getTransactionStatus() === "I",
      lost: (error) =>
        error instanceof pg.DatabaseError
          ? /^(57P0[1-3]|08)/.test(error.code ?? "")
          : ["ECONNRESET", "EPIPE"].includes(String((error as { code?: unknown } | null)?.code)) || /Connection terminated|not queryable/.test(error instanceof Error ? error.message : ""),
      onEnd: (client, listener) => void client.once("end", listener),
      hold: (client, held) => (held ? socketOf(client).ref() : socketOf(client).unref()),
    });
  }
}

async function open(config: ConnectorConfig, serverName: string, signal: AbortSignal): Promise<pg.Client> {
  const server = config.servers.get(serverName);
  if (!server) throw new Error(`server '${serverName}' is not configured`);
  const { connectMs, statementMs, lockMs } = config.timeouts;
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
  // A broken connection also emits 'error'; the rejected query already reports it, and a kept
  // idle one is given up when it ends.
  client.on("error", () => {});
  const abort = () => void client.end().catch(() => {});
  signal.addEventListener("abort", abort, { once: true });
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => {});
    signal.throwIfAborted();
    throw new Unreachable(serverName, error);
  } finally {
    signal.removeEventListener("abort", abort);
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
