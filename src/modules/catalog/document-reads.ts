import { chunked } from "../../platform/database/chunks.js";
import type { Database } from "../../platform/database/index.js";
import { resourceRepository, StoredDocument, type ResourceKind, type StoredResource, type StoredRow } from "./resource-repository.js";

/** Ids per statement: a read of many big documents at once stays a bounded answer. */
export const READ_CHUNK = 16;

type Read = typeof resourceRepository.getMany;

interface Waiter {
  /** Given the row found, or none; the caller makes its own document of it. */
  resolve(row: StoredRow | undefined): void;
  reject(error: unknown): void;
}

/** The reads asked for in one turn of the event loop, of one organization and kind. */
interface Group {
  organizationId: string;
  kind: ResourceKind;
  waiters: Map<string, Waiter[]>;
}

/**
 * Reads of one document each, outside any transaction (a `GET` of a catalog document), made
 * together: every read asked for in one turn of the event loop goes to the database in one
 * statement per organization and kind (of at most `READ_CHUNK` ids). On PostgreSQL each statement
 * is a round trip, and under concurrent requests that round trip is most of what a read costs both
 * processes: writing to the backend's socket and waking it was a quarter of the server's CPU
 * profile under authenticated `GET`s (bench/HISTORY.md, "Reads made together"). With 8 clients
 * about three reads share a statement.
 *
 * A read is sent after the request that asked for it arrived, never before, so it sees every
 * change committed before that: no answer is older than it would be alone. Each statement names
 * its organization and kind, and an answer is matched to a read by its id within that statement,
 * so a read never gets another organization's document. Every caller gets its own object, so
 * what one request does with its document never reaches another's.
 *
 * A general batching loader (DataLoader) answers a whole batch when its slowest part returns: one
 * organization's reads of big documents would hold every other organization's answers of that
 * turn. Here each statement answers its own reads as soon as it returns.
 *
 * On SQLite a read is a call into the library on this thread, with no round trip to save;
 * there each read runs at once, as it is asked for (`coalesce` turns making them together on
 * for tests).
 */
export class DocumentReads {
  readonly #database: Database;
  readonly #read: Read;
  readonly #coalesce: boolean;
  #groups = new Map<string, Group>();

  constructor(database: Database, { read = resourceRepository.getMany, coalesce = database.dialect === "postgres" }: { read?: Read; coalesce?: boolean } = {}) {
    this.#database = database;
    this.#read = read;
    this.#coalesce = coalesce;
  }

  get<D>(organizationId: string, kind: ResourceKind, id: string): Promise<StoredResource<D> | undefined> {
    if (!this.#coalesce) return resourceRepository.get<D>(this.#database.db, organizationId, kind, id);
    return new Promise((resolve, reject) => {
      if (this.#groups.size === 0) setImmediate(() => this.#flush());
      const key = `${organizationId}\u0000${kind}`;
      let group = this.#groups.get(key);
      if (group === undefined) this.#groups.set(key, (group = { organizationId, kind, waiters: new Map() }));
      const waiter: Waiter = { resolve: (row) => resolve(row === undefined ? undefined : new StoredDocument<D>(row)), reject };
      const waiting = group.waiters.get(id);
      if (waiting === undefined) group.waiters.set(id, [waiter]);
      else waiting.push(waiter);
    });
  }

  /** Sends what this turn asked for; reads asked for meanwhile wait for the next turn. */
  #flush(): void {
    const groups = this.#groups;
    this.#groups = new Map();
    for (const group of groups.values()) {
      for (const ids of chunked([...group.waiters.keys()], READ_CHUNK)) void this.#answer(group, ids);
    }
  }

  async #answer(group: Group, ids: string[]): Promise<void> {
    let rows: StoredRow[];
    try {
      rows = await this.#read(this.#database.db, this.#database.dialect, group.organizationId, group.kind, ids);
    } catch (error) {
      for (const id of ids) for (const waiter of group.waiters.get(id)!) waiter.reject(error);
      return;
    }
    const found = new Map<string, StoredRow>();
    for (const row of rows) found.set(row.id, row);
    for (const id of ids) {
      for (const waiter of group.waiters.get(id)!) waiter.resolve(found.get(id));
    }
  }
}
