import { EventEmitter } from "node:events";
import { eventsAppended } from "../metrics/registry.js";
import type { FastifyBaseLogger } from "fastify";
import { v7 as uuidv7 } from "uuid";
import type { Config } from "../platform/config.js";
import { nanoTimestamp, type Clock } from "../platform/clock.js";
import type { Database, Executor } from "../platform/database/index.js";
import { badRequest, conflict } from "../platform/errors.js";
import type { EventExtras, EventKind } from "./kinds.js";
import { BatchSealer, renderingKey } from "./engine/batch-sealer.js";
import { GroupCommit } from "./engine/group-commit.js";
import { eventRepository, type BatchPage, type EnvelopeParts, type EventRow, type RenderedBatch } from "./repository.js";
import { FeedCache } from "./engine/feed-cache.js";
import { StoredBatches } from "./engine/stored-batches.js";

export const MAX_BATCH = 1000;

/**
 * Batches read in halves at once in one process; more are read whole. Many consumers catching up
 * together then take at most this many more of the pool's connections than before, and the
 * writes still find theirs.
 */
const MAX_READS_IN_HALVES = 2;

/**
 * Records an event of the change being made; the log appends it when the change commits. A
 * `comment` (an approval's reason, say) is kept with the event for the resource's history.
 */
export type Emit = (kind: EventKind, subject: string, extras?: EventExtras, comment?: string) => void;

/**
 * Who causes a change: a request's principal (an API key or a signed-in person), or, with
 * neither id, the system itself (the scheduler).
 */
export interface Actor {
  organizationId: string;
  keyId?: string;
  userId?: string;
}

/** The CloudEvents `principal` of an actor: `api-key:<id>`, `user:<id>` or `system`. */
export function principalOf(actor: Actor): string {
  if (actor.keyId !== undefined) return `api-key:${actor.keyId}`;
  if (actor.userId !== undefined) return `user:${actor.userId}`;
  return "system";
}

interface Draft {
  kind: EventKind;
  subject: string;
  extras?: EventExtras;
  comment?: string;
  at: Date;
}

/** The envelope's configured parts as JSON text, for the database to join around each row. */
export function envelopePartsFor({ appUrl, eventTypePrefix }: Pick<Config, "appUrl" | "eventTypePrefix">): EnvelopeParts {
  // A JSON string's opening, without its closing quote: the database appends the kind and the quote.
  const opening = (text: string) => JSON.stringify(text).slice(0, -1);
  return {
    typeOpen: opening(`${eventTypePrefix}.`),
    schemaOpen: opening(`${appUrl}/api/openapi.yaml#/components/schemas/`),
    source: JSON.stringify(appUrl),
  };
}

/**
 * The one place events are appended and read. Every change runs through `transaction`, which
 * appends the change's events in the same database transaction, so there is no change without its
 * events and no event without its change.
 */
/** Names for event principals, for people to read: given by the modules, which know keys and people. */
export type PrincipalNamer = (ex: Executor, organizationId: string, principals: Iterable<string>) => Promise<Map<string, string>>;

export class EventLog {
  /** In-process wake-ups, one event name per organization id. */
  readonly commits = new EventEmitter();
  private readonly groups: GroupCommit;
  private readonly envelopeParts: EnvelopeParts;
  /** The stored batches this process may serve: those rendered as it renders (`renderingKey`). */
  readonly stored: StoredBatches;
  /** Stores full batches as they fill up; started and stopped with the log (`start`, `stop`). */
  readonly sealer: BatchSealer;
  /** Batches being read in halves now; each holds two connections of the pool. */
  private readingInHalves = 0;

  constructor(
    private readonly database: Database,
    config: Config,
    private readonly clock: Clock,
    /** Looks up who principals are (the modules know keys and people); without it, principals stay as stored. */
    private readonly namePrincipals: PrincipalNamer = async () => new Map(),
  ) {
    this.commits.setMaxListeners(0);
    this.envelopeParts = envelopePartsFor(config);
    const cache = config.feedCacheDir === undefined ? undefined : new FeedCache(config.feedCacheDir, config.feedCacheLimitBytes);
    this.stored = new StoredBatches(database, renderingKey(this.envelopeParts, MAX_BATCH), cache);
    this.sealer = new BatchSealer(database, this.stored, MAX_BATCH, (organizationId, afterSeq) => this.render(organizationId, { afterSeq, limit: MAX_BATCH }));
    this.groups = new GroupCommit(database, (organizationIds) => {
      for (const organizationId of organizationIds) this.commits.emit(organizationId);
    });
  }

  /**
   * Runs `work` as one atomic change and appends the events it emitted in the same transaction.
   * The transaction may be shared with other changes committed at the same moment (group commit,
   * `group-commit.ts`); each change is still all-or-nothing on its own.
   */
  async transaction<T>(actor: Actor, work: (trx: Executor, emit: Emit) => Promise<T>): Promise<T> {
    const { organizationId } = actor;
    const principal = principalOf(actor);
    // Two requests creating the same new id race to insert it; the loser runs again and then sees
    // the winner's row, exactly as if it had arrived a moment later.
    for (let attempt = 1; ; attempt++) {
      let appended = 0;
      try {
        const { value } = await this.groups.run({
          organizationId,
          work: async (trx) => {
            const drafts: Draft[] = [];
            const value = await work(trx, (kind, subject, extras, comment) => drafts.push({ kind, subject, extras, comment, at: this.clock.now() }));
            const rows = drafts.map((d) => ({
              id: uuidv7(),
              organization_id: organizationId,
              kind: d.kind,
              subject: d.subject,
              time: d.at.toISOString(),
              data: JSON.stringify({ id: d.subject, timestamp: nanoTimestamp(d.at), ...d.extras }),
              principal,
              comment: d.comment ?? null,
            }));
            appended = rows.length;
            return { value, rows };
          },
        });
        if (appended > 0) this.sealer.appended(organizationId, appended);
        if (appended > 0) eventsAppended.inc(appended);
        return value;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        if (attempt >= 3) throw conflict("The resource was changed concurrently; retry the request.");
      }
    }
  }

  /** Position after which to read, from a client's `lastEventId` (400 when it names no event of this organization). */
  async positionAfter(organizationId: string, lastEventId: string | undefined): Promise<number> {
    if (lastEventId === undefined) return 0;
    const seq = await eventRepository.positionOf(this.database.db, organizationId, lastEventId.toLowerCase());
    if (seq === undefined) {
      throw badRequest(`lastEventId '${lastEventId}' names no event of this organization. Omit it to read from the start.`, [
        { field: "lastEventId", message: "unknown event id" },
      ]);
    }
    return seq;
  }

  async readAfter(organizationId: string, afterSeq: number, limit = MAX_BATCH): Promise<EventRow[]> {
    return eventRepository.readAfter(this.database.db, organizationId, afterSeq, Math.min(limit, MAX_BATCH));
  }

  /**
   * The feed's next batch after `afterSeq`, rendered as `renderBatch` would render it.
   *
   * A full batch is stored once rendered (`BatchSealer`), and served as stored when the position
   * is where it starts, as it is for a consumer that read from the start. A position inside a
   * stored batch (a consumer that began at an event of its own choosing) is answered with the
   * rest of that batch only, and one before a stored batch with the events up to it, so that the
   * consumer's next request is for a stored batch.
   *
   * Past the stored batches the database renders the batch row by row on one connection, and on
   * PostgreSQL that rendering is most of the read's time; with `inHalves` the two halves are
   * rendered at once on two connections, so two of the database's cores share it (`joinHalves`
   * says why that is safe). SQLite has one connection and would only read twice.
   */
  async readBatch(organizationId: string, afterSeq: number, inHalves = false): Promise<RenderedBatch> {
    // Whether this read may use two connections is decided as it starts, before any await, so
    // that reads started together are counted together.
    const halves = inHalves && this.database.dialect === "postgres" && this.readingInHalves < MAX_READS_IN_HALVES;
    if (halves) this.readingInHalves++;
    try {
      const stored = await this.stored.ahead(organizationId, afterSeq);
      if (stored?.batch) return stored.batch;
      if (stored) return await this.render(organizationId, { afterSeq, limit: MAX_BATCH, untilSeq: stored.afterSeq > afterSeq ? stored.afterSeq : stored.lastSeq });
      if (!halves) return await this.render(organizationId, { afterSeq, limit: MAX_BATCH });
      const half = MAX_BATCH / 2;
      const [first, second] = await Promise.all([this.render(organizationId, { afterSeq, limit: half }), this.render(organizationId, { afterSeq, skip: half, limit: half })]);
      return joinHalves(first, second, half);
    } finally {
      if (halves) this.readingInHalves--;
    }
  }

  /** Starts storing full batches in the background; from now on the log's failures are logged. */
  start(logger: FastifyBaseLogger): void {
    this.stored.cache?.setLogger(logger);
    this.sealer.start(logger);
  }

  /** Stops storing batches and waits for the feed cache's writes, so the database can be closed. */
  async stop(): Promise<void> {
    await this.sealer.stop();
    await this.stored.cache?.settled();
  }

  /** Renders a page of the log from its rows. */
  private render(organizationId: string, page: BatchPage): Promise<RenderedBatch> {
    return eventRepository.readRendered(this.database.db, this.database.dialect, organizationId, page, this.envelopeParts);
  }

  async readLatest(organizationId: string, limit: number, subject?: string): Promise<EventRow[]> {
    return eventRepository.readLatest(this.database.db, organizationId, Math.min(limit, MAX_BATCH), subject);
  }

  /** One resource's events of `kinds` since its latest `sinceKind` event, oldest first. */
  async readHistory(organizationId: string, subject: string, kinds: readonly string[], sinceKind: string, offset: number, limit: number): Promise<EventRow[]> {
    return eventRepository.readHistory(this.database.db, organizationId, subject, kinds, sinceKind, offset, Math.min(limit, MAX_BATCH));
  }

  /** Readable names of principals: a key's display name, a person's address (see `PrincipalNamer`). */
  async principalNames(organizationId: string, principals: Iterable<string>): Promise<Map<string, string>> {
    return this.namePrincipals(this.database.db, organizationId, principals);
  }

  /**
   * Renders rows as a CloudEvents JSON array, for the views that add principals' names. Built as
   * text: `data` is stored as JSON already. The feed itself has the database render its batches
   * (`readBatch`), member for member the same.
   */
  renderBatch(rows: EventRow[], names?: Map<string, string>): string {
    const { typeOpen, schemaOpen, source } = this.envelopeParts;
    const parts = rows.map(
      (row) =>
        `{"specversion":"1.0","id":"${row.id}","type":${typeOpen}${row.kind}","source":${source},` +
        `"time":"${row.time}","subject":${JSON.stringify(row.subject)},"datacontenttype":"application/json",` +
        `"dataschema":${schemaOpen}${row.kind}","principal":${JSON.stringify(row.principal)},` +
        // Steward's own views (GET /api/events/recent) add a readable name; the feed never does.
        (names ? `"principalName":${JSON.stringify(names.get(row.principal) ?? row.principal)},` : "") +
        `"data":${row.data}}`,
    );
    return `[${parts.join(",")}]`;
  }
}

function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * One batch from its two halves, read at once but not in one snapshot: `first` holds the events
 * after a position, `second` those after the first `half` of them. Within an organization the log
 * only grows at its end, in position order (the append lock), so whatever either read saw, the
 * events after a position are a list that later snapshots only lengthen. A full `first` is then
 * the same first half in every snapshot, and `second` continues it exactly. A `first` that is not
 * full was read when the log ended within it; a `second` read later may have found events beyond
 * ones `first` never saw, so it is dropped: a shorter batch is a correct answer, a gap is not.
 */
export function joinHalves(first: RenderedBatch, second: RenderedBatch, half: number): RenderedBatch {
  if (first.count < half || second.count === 0) return first;
  // Both are JSON arrays: drop the first's "]" and the second's "[", and join them with a comma.
  const body = Buffer.concat([first.body.subarray(0, first.body.length - 1), COMMA, second.body.subarray(1)]);
  return { count: first.count + second.count, lastSeq: second.lastSeq, lastId: second.lastId, body };
}

const COMMA = Buffer.from(",");

