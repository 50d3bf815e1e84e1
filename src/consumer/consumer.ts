import { StewardClient, type FetchLike } from "./client.js";
import { FeedConsumerError, isAbortError } from "./errors.js";
import { eventKind, resourcePath, type CloudEvent } from "./events.js";
import { abortableSleep, type Sleep } from "./sleep.js";
import type { PositionStore } from "./stores.js";

export interface EventContext {
  /** The event kind: the part of `type` after the last `.`, e.g. `AccessActivatedEvent`. */
  readonly kind: string;
  /** A client with the consumer's base URL and key, for reading more or reporting back. */
  readonly api: StewardClient;
  /** Aborts when the consumer is asked to stop; pass it on to long work. */
  readonly signal: AbortSignal;
  /**
   * The current state of the resource behind `data.id`, or `undefined` when it no longer exists
   * (404). `path` defaults to the event's own resource, e.g. `/api/access/<data.id>`.
   */
  fetchResource<T = unknown>(path?: string): Promise<T | undefined>;
}

export type EventHandler = (event: CloudEvent, context: EventContext) => void | Promise<void>;

/** Any of these may be left out; `console` fits. */
export interface ConsumerLogger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

export interface RetryInfo {
  /** How long the consumer waits before asking again. */
  waitMs: number;
  /** What failed: reading the feed, or loading or saving the position. */
  operation: "read" | "load" | "save";
}

export interface FeedConsumerOptions {
  /** Where Steward serves, e.g. `http://localhost:8080`. */
  baseUrl: string;
  apiKey: string;
  /** Where the last processed event id is kept between runs. */
  store: PositionStore;
  /** Called once per event, in feed order, one at a time; the next event waits for it. */
  handler: EventHandler;
  /**
   * Event kinds to hand to `handler` (`AccessActivatedEvent`, any type prefix). Other events are
   * skipped, but the position still moves past them. Default: every kind.
   */
  types?: readonly string[];
  /** Wait after an empty batch. Default 10 000 ms (the protocol's 10 s). */
  emptyWaitMs?: number;
  /** Wait after a server error (5xx, 408, 429) or a network failure. Default 60 000 ms. */
  errorWaitMs?: number;
  /** Stops the consumer: between events, and at once while it waits or a request is in flight. */
  signal?: AbortSignal;
  fetch?: FetchLike;
  logger?: ConsumerLogger;
  /** Told about every error the consumer retries after a wait. Errors that stop it reject `run()`. */
  onError?: (error: FeedConsumerError, info: RetryInfo) => void;
  /** How to wait; for tests or custom scheduling. Must resolve early when `signal` aborts. */
  sleep?: Sleep;
  /** Resolve `run()` at the first empty batch instead of waiting for more: for runs from cron or CI. */
  stopWhenCaughtUp?: boolean;
  /**
   * Follow Steward with long polling (`longPolling=true`): an empty batch was held by the server
   * until it timed out, so the next read follows at once. Steward's own connectors only; the
   * seed's protocol (short polls, `emptyWaitMs` apart) stays the default. Ignored with `stopWhenCaughtUp`.
   */
  longPolling?: boolean;
}

/**
 * Reads Steward's event feed with the seed's consumer protocol (`longPolling=false`).
 *
 * Delivery is at least once: the position is saved after the handler finishes, so a crash
 * between the two hands that one event over again on the next run. Make handlers idempotent.
 */
export class FeedConsumer {
  readonly client: StewardClient;
  readonly #store: PositionStore;
  readonly #handler: EventHandler;
  readonly #types: ReadonlySet<string> | undefined;
  readonly #emptyWaitMs: number;
  readonly #errorWaitMs: number;
  readonly #signal: AbortSignal;
  readonly #logger: ConsumerLogger;
  readonly #onError: FeedConsumerOptions["onError"];
  readonly #sleep: Sleep;
  readonly #stopWhenCaughtUp: boolean;
  readonly #longPolling: boolean;
  #position: string | undefined;
  #running = false;

  constructor(options: FeedConsumerOptions) {
    if (!options.store) throw new TypeError("FeedConsumer: store is required");
    if (typeof options.handler !== "function") throw new TypeError("FeedConsumer: handler must be a function");
    this.client = new StewardClient(options);
    this.#store = options.store;
    this.#handler = options.handler;
    this.#types = options.types && new Set(options.types.map(eventKind));
    this.#emptyWaitMs = wait(options.emptyWaitMs, 10_000, "emptyWaitMs");
    this.#errorWaitMs = wait(options.errorWaitMs, 60_000, "errorWaitMs");
    this.#signal = options.signal ?? new AbortController().signal;
    this.#logger = options.logger ?? {};
    this.#onError = options.onError;
    this.#sleep = options.sleep ?? abortableSleep;
    this.#stopWhenCaughtUp = options.stopWhenCaughtUp ?? false;
    this.#longPolling = options.longPolling === true && !this.#stopWhenCaughtUp;
  }

  /** Id of the last event processed (or loaded from the store), if any. */
  get position(): string | undefined {
    return this.#position;
  }

  /**
   * Consumes until the signal aborts or, with `stopWhenCaughtUp`, the feed is exhausted (then resolves), or until an error that waiting cannot fix
   * (then rejects): a 4xx answer such as a wrong key (401) or an unknown position (400) as a
   * {@link FeedConsumerError}, a failing store, or the handler's own error. When the handler
   * throws, the position stays at the event before.
   */
  async run(): Promise<void> {
    if (this.#running) throw new Error("FeedConsumer: run() is already in progress");
    this.#running = true;
    try {
      const loaded = await this.#retrying("load", () => this.#store.load());
      if (loaded.stopped) return;
      this.#position = loaded.value;
      this.#logger.info?.("consuming the event feed", { baseUrl: this.client.baseUrl, lastEventId: this.#position ?? null });
      while (!this.#signal.aborted) {
        const read = await this.#retrying("read", () => this.#readBatch());
        if (read.stopped) return;
        const batch = read.value;
        this.#logger.debug?.("read a batch", { events: batch.length, lastEventId: this.#position ?? null });
        if (batch.length === 0) {
          if (this.#stopWhenCaughtUp) return;
          if (!this.#longPolling) await this.#sleep(this.#emptyWaitMs, this.#signal);
          continue;
        }
        for (const event of batch) {
          if (this.#signal.aborted) return;
          if (!(await this.#handle(event))) return;
          const saved = await this.#retrying("save", () => this.#store.save(event.id));
          if (saved.stopped) return;
          this.#position = event.id;
        }
      }
    } finally {
      this.#running = false;
      this.#logger.info?.("stopped consuming", { lastEventId: this.#position ?? null });
    }
  }

  async #readBatch(): Promise<CloudEvent[]> {
    const query = new URLSearchParams({ longPolling: String(this.#longPolling) });
    if (this.#position !== undefined) query.set("lastEventId", this.#position);
    const path = `/api/events?${query}`;
    const batch = await this.client.get<unknown>(path, { signal: this.#signal });
    if (!Array.isArray(batch)) {
      throw new FeedConsumerError(`GET ${path} answered something other than an array of events; is the base URL right?`, {
        status: 200,
        retryable: false,
      });
    }
    return batch as CloudEvent[];
  }

  /** False when the handler gave up because the consumer is stopping. */
  async #handle(event: CloudEvent): Promise<boolean> {
    const kind = eventKind(event.type);
    if (this.#types && !this.#types.has(kind)) return true;
    const client = this.client;
    const signal = this.#signal;
    const context: EventContext = {
      kind,
      api: client,
      signal,
      async fetchResource<T>(path = resourcePath(event)) {
        if (!path) throw new TypeError(`No default resource path for ${kind}; pass one to fetchResource()`);
        try {
          return await client.get<T>(path, { signal });
        } catch (error) {
          if (error instanceof FeedConsumerError && error.status === 404) return undefined;
          throw error;
        }
      },
    };
    try {
      await this.#handler(event, context);
      return true;
    } catch (error) {
      if (this.#signal.aborted && isAbortError(error, this.#signal)) return false;
      this.#logger.error?.("the handler failed; stopping before this event", { eventId: event.id, type: event.type });
      throw error;
    }
  }

  /** Runs `operation`, waiting `errorWaitMs` after each retryable failure; `stopped` once aborted. */
  async #retrying<T>(operation: RetryInfo["operation"], work: () => Promise<T>): Promise<{ stopped: true } | { stopped: false; value: T }> {
    for (;;) {
      if (this.#signal.aborted) return { stopped: true };
      try {
        return { stopped: false, value: await work() };
      } catch (error) {
        if (this.#signal.aborted && isAbortError(error, this.#signal)) return { stopped: true };
        if (!(error instanceof FeedConsumerError && error.retryable)) throw error;
        const info: RetryInfo = { waitMs: this.#errorWaitMs, operation };
        this.#logger.warn?.(`${error.message}; retrying in ${info.waitMs} ms`, { operation });
        this.#onError?.(error, info);
        await this.#sleep(info.waitMs, this.#signal);
      }
    }
  }
}

function wait(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`FeedConsumer: ${name} must be a non-negative number of milliseconds`);
  return value;
}
