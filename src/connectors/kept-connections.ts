/**
 * One connection per configured server kept open between pieces of work, within an event and
 * across events (docs/consumers.md, "Connections"), for every engine's connector: a deactivation's
 * ledger reads and its REVOKE then need no new connection each. A connection is given up after
 * any error, after an abort, after work that left it unfit (a transaction open), or when the server
 * closes it while idle, and the next piece of work opens a new one; a second piece of work on a
 * server while the first still runs gets a connection of its own. `close` ends them all.
 */

/** No connection could be made to a configured server; the cause stays in the operator's log. */
export class Unreachable extends Error {
  override readonly name: string = "Unreachable";
  constructor(
    readonly server: string,
    cause: unknown,
  ) {
    super(`could not connect to server '${server}'`, { cause });
  }
}

/** What an engine's driver does for {@link KeptConnections}. */
export interface Driver<C> {
  /** A new connection to a configured server, with its timeouts set; throws the engine's "unreachable" error. */
  open(server: string, signal: AbortSignal): Promise<C>;
  /** Ends a connection, waiting for nothing but its own goodbye; never throws. */
  end(connection: C): Promise<void>;
  /** Ends a connection at once, whatever it is waiting for (an abort). */
  destroy(connection: C): void;
  /** Whether a connection that finished its work may serve the next piece of work. */
  reusable(connection: C): boolean;
  /** Whether an error says the connection itself was lost, rather than a statement refused on it. */
  lost(error: unknown): boolean;
  /** Calls `listener` once when the connection closes, from either side. */
  onEnd(connection: C, listener: () => void): void;
  /** Whether an idle connection keeps the process alive (`false` while it is kept idle). */
  hold(connection: C, held: boolean): void;
}

export class KeptConnections<C> {
  private readonly idle = new Map<string, C>();
  private closed = false;

  constructor(private readonly driver: Driver<C>) {}

  async with<T>(server: string, signal: AbortSignal, work: (connection: C) => Promise<T>): Promise<T> {
    signal.throwIfAborted();
    const kept = this.idle.get(server);
    this.idle.delete(server);
    if (kept === undefined) return this.run(server, await this.open(server, signal), signal, work);
    try {
      return await this.run(server, kept, signal, work);
    } catch (error) {
      // A kept connection the server closed while it was idle (a restart, an administrator, an
      // idle timeout): the work is done again on a new one. Every piece of work a connector
      // gives is safe to repeat (a read, an upsert or delete of the ledger, idempotent grants
      // and revokes, or a transaction).
      if (signal.aborted || !this.driver.lost(error)) throw error;
      return this.run(server, await this.open(server, signal), signal, work);
    }
  }

  /** Ends every connection kept open; work after this opens and ends its own. */
  async close(): Promise<void> {
    this.closed = true;
    const open = [...this.idle.values()];
    this.idle.clear();
    await Promise.all(open.map((connection) => this.driver.end(connection)));
  }

  private async open(server: string, signal: AbortSignal): Promise<C> {
    const connection = await this.driver.open(server, signal);
    this.driver.onEnd(connection, () => {
      if (this.idle.get(server) === connection) this.idle.delete(server);
    });
    return connection;
  }

  private async run<T>(server: string, connection: C, signal: AbortSignal, work: (connection: C) => Promise<T>): Promise<T> {
    this.driver.hold(connection, true);
    const abort = () => this.driver.destroy(connection);
    signal.addEventListener("abort", abort, { once: true });
    let fit = false;
    try {
      const result = await work(connection);
      fit = this.driver.reusable(connection);
      return result;
    } catch (error) {
      signal.throwIfAborted();
      throw error;
    } finally {
      signal.removeEventListener("abort", abort);
      if (fit && !signal.aborted && !this.closed && !this.idle.has(server)) {
        this.driver.hold(connection, false);
        this.idle.set(server, connection);
      } else {
        await this.driver.end(connection);
      }
    }
  }
}
