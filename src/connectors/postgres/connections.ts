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
 * Connections to the configured servers only, each with every timeout set: connecting (until the
 * server is ready for queries), each statement and lock wait on the server, and each answer on
 * the client side (a server that stops answering mid-statement). An abort signal ends the
 * connection in use at once, whatever it is waiting for.
 *
 * One connection per server is kept open between pieces of work, within an event and across
 * events (docs/consumers.md, "Connections"): a deactivation's ledger reads and its REVOKE then
 * need no new connection each. A connection is given up after any error, after an abort, or when
 * the server closes it while idle, and the next piece of work opens a new one; a second piece of
 * work on a server while the first still runs gets a connection of its own. `close` ends them all.
 */
export class Connections {
  private readonly idle = new Map<string, pg.Client>();
  private closed = false;

  constructor(private readonly config: ConnectorConfig) {}

  async with<T>(serverName: string, signal: AbortSignal, work: (client: pg.Client) => Promise<T>): Promise<T> {
    signal.throwIfAborted();
    const kept = this.idle.get(serverName);
    this.idle.delete(serverName);
    if (!kept) return this.run(serverName, await this.open(serverName, signal), signal, work);
    try {
      return await this.run(serverName, kept, signal, work);
    } catch (error) {
      // A kept connection the server closed while it was idle (a restart, an administrator,
      // an idle timeout): the work is done again on a new one. Every piece of work the connector
      // gives is safe to repeat (a read, an upsert or delete of the ledger, or a transaction).
      if (signal.aborted || !lostConnection(error)) throw error;
      return this.run(serverName, await this.open(serverName, signal), signal, work);
    }
  }

  /** Ends every connection kept open; work after this opens and ends its own. */
  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.idle.values()];
    this.idle.clear();
    await Promise.all(open.map((client) => client.end().catch(() => {})));
  }

  private async open(serverName: string, signal: AbortSignal): Promise<pg.Client> {
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
    // A broken connection also emits 'error'; the rejected query already reports it, and an idle
    // one is given up below.
    client.on("error", () => {});
    client.once("end", () => {
      if (this.idle.get(serverName) === client) this.idle.delete(serverName);
    });
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

  private async run<T>(serverName: string, client: pg.Client, signal: AbortSignal, work: (client: pg.Client) => Promise<T>): Promise<T> {
    socketOf(client).ref();
    const abort = () => void client.end().catch(() => {});
    signal.addEventListener("abort", abort, { once: true });
    let healthy = false;
    try {
      const result = await work(client);
      healthy = client.getTransactionStatus() === "I";
      return result;
    } catch (error) {
      signal.throwIfAborted();
      throw error;
    } finally {
      signal.removeEventListener("abort", abort);
      if (healthy && !signal.aborted) this.keep(serverName, client);
      else await client.end().catch(() => {});
    }
  }

  /** Keeps a connection that finished its work outside a transaction for the next piece of work. */
  private keep(serverName: string, client: pg.Client): void {
    if (this.closed || this.idle.has(serverName)) {
      void client.end().catch(() => {});
      return;
    }
    // An idle connection does not keep the process alive.
    socketOf(client).unref();
    this.idle.set(serverName, client);
  }
}

/** pg's client has `ref` and `unref` (on its socket) that its type declarations leave out. */
const socketOf = (client: pg.Client) => client as unknown as { ref(): void; unref(): void };

/** The connection itself was lost (closed by the server or the network), as opposed to a statement refused on it. */
function lostConnection(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return /^(57P0[1-3]|08)/.test(error.code ?? "");
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ECONNRESET" || code === "EPIPE" || /Connection terminated|not queryable/.test(error instanceof Error ? error.message : "");
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
