import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { StewardClient, type FetchLike } from "./client.js";
import { FeedConsumerError } from "./errors.js";

/**
 * Where a consumer keeps the id of the last event it processed. Any object with these two methods
 * will do: a database row, a key-value store, a file.
 */
export interface PositionStore {
  /** The stored event id, or `undefined` to start at the beginning of the feed. */
  load(): Promise<string | undefined>;
  /** Called after every processed event; must be durable when it resolves. */
  save(id: string): Promise<void>;
}

/** Keeps the position in memory only: a restart starts again from `initial`. */
export class MemoryPositionStore implements PositionStore {
  #position: string | undefined;

  constructor(initial?: string) {
    this.#position = initial;
  }

  get position(): string | undefined {
    return this.#position;
  }

  async load(): Promise<string | undefined> {
    return this.#position;
  }

  async save(id: string): Promise<void> {
    this.#position = id;
  }
}

/**
 * Keeps the position as one line of text in a file. A missing or empty file means no position.
 * Writes go to a temporary file in the same directory that is then renamed over the old one, so a
 * crash leaves either the old or the new id, never a torn file.
 */
export class FilePositionStore implements PositionStore {
  readonly path: string;
  #madeDirectory = false;

  constructor(path: string) {
    if (!path) throw new TypeError("FilePositionStore: path is required");
    this.path = path;
  }

  async load(): Promise<string | undefined> {
    try {
      const text = (await readFile(this.path, "utf8")).trim();
      return text === "" ? undefined : text;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async save(id: string): Promise<void> {
    if (!this.#madeDirectory) {
      await mkdir(dirname(this.path), { recursive: true });
      this.#madeDirectory = true;
    }
    const temporary = `${this.path}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      const file = await open(temporary, "w");
      try {
        await file.writeFile(`${id}\n`, "utf8");
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, this.path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
}

export interface ConnectorInfo {
  /** What the connector does, e.g. `postgres-access`. */
  type: string;
  description?: string;
  connectorVersion?: string;
  [key: string]: unknown;
}

/** The connector document of `/api/connectors/{id}`. */
export interface ConnectorDocument {
  id?: string;
  info: ConnectorInfo;
  state?: { lastEventId?: string | null; [key: string]: unknown };
  custom?: unknown;
  [key: string]: unknown;
}

export type ConnectorPositionStoreOptions = {
  /** The connector's id in Steward (client-chosen: 1–256 characters, no `/`). */
  connectorId: string;
  /** Registered on first use and sent with every save. */
  info: ConnectorInfo;
} & ({ client: StewardClient } | { baseUrl: string; apiKey: string; fetch?: FetchLike });

/**
 * Keeps the position in Steward itself, as `state.lastEventId` of a connector
 * (`PUT /api/connectors/{id}`, organization keys only). The connector is registered on first use;
 * other state fields and `custom` are kept as they were read.
 */
export class ConnectorPositionStore implements PositionStore {
  readonly connectorId: string;
  readonly client: StewardClient;
  readonly #info: ConnectorInfo;
  #document: ConnectorDocument | undefined;

  constructor(options: ConnectorPositionStoreOptions) {
    if (!options.connectorId) throw new TypeError("ConnectorPositionStore: connectorId is required");
    if (!options.info?.type) throw new TypeError("ConnectorPositionStore: info.type is required");
    this.connectorId = options.connectorId;
    this.#info = options.info;
    this.client = "client" in options ? options.client : new StewardClient(options);
  }

  get #path(): string {
    return `/api/connectors/${encodeURIComponent(this.connectorId)}`;
  }

  /** The connector document as last read or written. */
  get document(): ConnectorDocument | undefined {
    return this.#document;
  }

  async load(): Promise<string | undefined> {
    try {
      this.#document = await this.client.get<ConnectorDocument>(this.#path);
    } catch (error) {
      if (!(error instanceof FeedConsumerError && error.status === 404)) throw error;
      this.#document = await this.client.put<ConnectorDocument>(this.#path, { info: this.#info, state: {} });
    }
    return this.#document.state?.lastEventId ?? undefined;
  }

  async save(id: string): Promise<void> {
    if (!this.#document) await this.load();
    const { id: _id, ...current } = this.#document!;
    this.#document = await this.client.put<ConnectorDocument>(this.#path, {
      ...current,
      info: { ...current.info, ...this.#info },
      state: { ...current.state, lastEventId: id },
    });
  }
}
