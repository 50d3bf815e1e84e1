import { sql, type Selectable } from "kysely";
import pg from "pg";
import { WRITE_LATER } from "../platform/database/drivers/pg-write-behind.js";
import { chunked } from "../platform/database/chunks.js";
import { containsText } from "../platform/database/like.js";
import type { DialectName, Executor } from "../platform/database/index.js";
import type { EventsTable } from "../platform/database/tables.js";
import { transactionControl } from "../platform/database/drivers/transaction-control.js";

/** An event as read back: its row without the organization, which the reader already names. */
export type EventRow = Omit<Selectable<EventsTable>, "organization_id">;

/** An event to append; its position in the log is given by the database. */
export type NewEventRow = Omit<EventsTable, "seq">;

/** A batch of the feed as the database rendered it: its size, its last event, and the CloudEvents JSON array as UTF-8. */
export interface RenderedBatch {
  count: number;
  lastSeq: number;
  lastId: string | undefined;
  body: Buffer;
  /**
   * Set when the body is in a buffer lent by the feed cache (`BatchBuffers`): to be called once,
   * when nothing reads the body any more (its response has closed). Until then the buffer is
   * nobody else's; never called, it is left to the garbage collector.
   */
  release?: () => void;
}

/**
 * Which events a rendered batch holds: `limit` of them, after the first `skip` of those after
 * position `afterSeq`, and none after position `untilSeq`.
 */
export interface BatchPage {
  afterSeq: number;
  skip?: number;
  limit: number;
  untilSeq?: number;
}

/**
 * The parts of an envelope that come from configuration, as JSON text: `typeOpen` is the opening
 * quote and the type prefix with its dot (`"com.service.events.`), `schemaOpen` the same for the
 * `dataschema` URL up to the kind, `source` the quoted `APP_URL`.
 */
export interface EnvelopeParts {
  typeOpen: string;
  schemaOpen: string;
  source: string;
}

const EVENT_COLUMNS = ["seq", "id", "kind", "subject", "time", "data", "principal", "comment"] as const;

/** The only SQL that touches the event log. */
export const eventRepository = {
  /** Every organization, for the sweeps that look at each log once (the batch sealer at start). */
  async organizationIds(ex: Executor): Promise<string[]> {
    const rows = await ex.selectFrom("organizations").select("id").execute();
    return rows.map((row) => row.id);
  },

  /**
   * Opens the transaction a group of changes runs in. On PostgreSQL it also takes the
   * organization's append lock, held until the transaction ends, so positions follow commit order
   * within the organization (docs/events.md); SQLite has a single writer, which gives the same
   * order for free. The lock goes with `begin`, in one round trip, so the organization id is
   * written into it as a literal, escaped by `pg` itself.
   */
  async begin(conn: Executor, dialect: DialectName, organizationId: string): Promise<void> {
    const lock = `select pg_advisory_xact_lock(${APPEND_LOCK_SPACE}, hashtext(${pg.escapeLiteral(organizationId)}))`;
    await transactionControl.begin(conn, dialect === "postgres" ? lock : undefined);
  },

  /**
   * Commits the transaction `begin` opened. On PostgreSQL the commit also wakes the long polls of
   * every process for the organizations that appended events, in the same round trip: a
   * notification is delivered when, and only if, its transaction commits.
   */
  async commit(conn: Executor, dialect: DialectName, appendedBy: Iterable<string>): Promise<void> {
    const notifications = dialect === "postgres" ? [...appendedBy].map((id) => `pg_notify(${pg.escapeLiteral(NOTIFY_CHANNEL)}, ${pg.escapeLiteral(id)})`) : [];
    await transactionControl.commit(conn, notifications.length > 0 ? `select ${notifications.join(", ")}` : undefined);
  },

  /**
   * Appends rows at the end of the log, in the caller's transaction. Every change runs it, so it is
   * a `sql` template rather than the query builder, which costs far more per value (the document's
   * statements in resource-repository.ts say how much).
   */
  async append(trx: Executor, rows: NewEventRow[]): Promise<void> {
    // One INSERT per chunk: a change with thousands of events would pass the databases' limits on
    // bound parameters (SQLite 32,766, PostgreSQL 65,535) in a single statement.
    for (const chunk of chunked(rows, APPEND_CHUNK)) {
      const values = sql.join(chunk.map((r) => sql`(${r.id}, ${r.organization_id}, ${r.kind}, ${r.subject}, ${r.time}, ${r.data}, ${r.principal}, ${r.comment})`));
      await sql`insert into "events" ("id", "organization_id", "kind", "subject", "time", "data", "principal", "comment")
        values ${values} ${WRITE_LATER}`.execute(trx);
    }
  },

  async positionOf(db: Executor, organizationId: string, eventId: string): Promise<number | undefined> {
    const row = await db
      .selectFrom("events")
      .select("seq")
      .where("id", "=", eventId)
      .where("organization_id", "=", organizationId)
      .executeTakeFirst();
    return row?.seq;
  },

  /** Whether at least `count` events of the organization follow position `afterSeq`: an index seek, no rows read. */
  async atLeastAfter(db: Executor, organizationId: string, afterSeq: number, count: number): Promise<boolean> {
    const row = await db
      .selectFrom("events")
      .select("seq")
      .where("organization_id", "=", organizationId)
      .where("seq", ">", afterSeq)
      .orderBy("seq")
      .offset(count - 1)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  async readAfter(db: Executor, organizationId: string, afterSeq: number, limit: number): Promise<EventRow[]> {
    return db
      .selectFrom("events")
      .select(EVENT_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("seq", ">", afterSeq)
      .orderBy("seq")
      .limit(limit)
      .execute();
  },

  /**
   * The feed's batch after `afterSeq`, rendered by the database as one CloudEvents JSON array. A
   * catch-up reads millions of envelopes; turning each row into an object and back into JSON in
   * JavaScript cost more than reading it, and SQLite hands the array over as bytes, ready to send.
   * Must render what `EventLog.renderBatch` renders (a test holds them equal). `kind` is one of
   * Steward's own identifiers and needs no escaping; the texts a client chose (`subject`) or that
   * name a principal are quoted by the database's JSON function.
   *
   * Order: an aggregate with its own `order by` sorts every envelope again, which was a third of
   * the read, although the page already comes out in `seq` order. Neither database promises that an
   * unordered aggregate keeps its input's order, so the batch is first read unordered with the
   * positions aggregated beside the envelopes: both aggregates take the same rows in the same
   * steps, so the positions show the order the envelopes were joined in. Only when they are not
   * ascending is the batch read again with the sort (`sorted`). PostgreSQL sorts a page of 1,000
   * rows at no cost that shows beside its rendering, so it always reads sorted.
   */
  async readRendered(
    db: Executor,
    dialect: DialectName,
    organizationId: string,
    page: BatchPage,
    parts: EnvelopeParts,
    sorted = false,
  ): Promise<RenderedBatch> {
    const { afterSeq, skip = 0, limit, untilSeq } = page;
    const postgres = dialect === "postgres";
    sorted ||= postgres;
    const quote = (column: string) => sql.raw(postgres ? `to_json(${column})::text` : `json_quote(${column})`);
    // concat() builds each envelope in one piece; a chain of `||` made a new string at each of its
    // twenty joins, copying the envelope so far every time (a third of SQLite's read). Parameters
    // are cast: PostgreSQL cannot infer a type for a parameter passed to concat().
    const text = (value: string) => sql`cast(${value} as text)`;
    const envelope = sql`concat('{"specversion":"1.0","id":"', id, '","type":', ${text(parts.typeOpen)}, kind, '","source":', ${text(parts.source)}, ',"time":"', time, '","subject":', ${quote("subject")}, ',"datacontenttype":"application/json","dataschema":', ${text(parts.schemaOpen)}, kind, '","principal":', ${quote("principal")}, ',"data":', data, '}')`;
    const array = sql`'[' || coalesce(string_agg(${envelope}, ',' ${sql.raw(sorted ? "order by seq" : "")}), '') || ']'`;
    const positions = sorted ? sql`null` : sql`string_agg(cast(seq as text), ',')`;
    // On SQLite a blob comes back as a Buffer. The last id is one lookup by position, cheaper than
    // a second aggregate.
    const { rows } = await sql<{ count: number; last_seq: number | null; last_id: string | null; positions: string | null; body: Buffer | string }>`
      select batch.count, batch.last_seq, (select id from events where seq = batch.last_seq) as last_id, batch.positions, batch.body
      from (
        select count(*) as count, max(seq) as last_seq, ${positions} as positions, ${postgres ? array : sql`cast(${array} as blob)`} as body
        from (
          select seq, id, kind, subject, time, data, principal from events
          where organization_id = ${organizationId} and seq > ${afterSeq} ${untilSeq === undefined ? sql`` : sql`and seq <= ${untilSeq}`}
          order by seq limit ${limit} offset ${skip}
        ) as page
      ) as batch`.execute(db);
    const [row] = rows;
    if (!sorted && row.positions !== null && !ascending(row.positions)) {
      return eventRepository.readRendered(db, dialect, organizationId, page, parts, true);
    }
    return {
      count: Number(row.count),
      lastSeq: Number(row.last_seq ?? afterSeq),
      lastId: row.count > 0 ? (row.last_id ?? undefined) : undefined,
      body: typeof row.body === "string" ? Buffer.from(row.body) : row.body,
    };
  },

  /**
   * One resource's events of the given kinds, oldest first, from the latest `sinceKind` event on
   * (so a resource deleted and created again under the same id starts a new history).
   */
  async readHistory(
    db: Executor,
    organizationId: string,
    subject: string,
    kinds: readonly string[],
    sinceKind: string,
    offset: number,
    limit: number,
  ): Promise<EventRow[]> {
    const start = await db
      .selectFrom("events")
      .select((eb) => eb.fn.max("seq").as("seq"))
      .where("organization_id", "=", organizationId)
      .where("subject", "=", subject)
      .where("kind", "=", sinceKind)
      .executeTakeFirst();
    return db
      .selectFrom("events")
      .select(EVENT_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("subject", "=", subject)
      .where("kind", "in", kinds)
      .where("seq", ">=", Number(start?.seq ?? 0))
      .orderBy("seq")
      .offset(offset)
      .limit(limit)
      .execute();
  },

  /**
   * The newest event of `kind` about `subject` since `since` whose data holds `fragment` verbatim
   * (a member written by Steward, such as a proposal's hash), if any.
   */
  async latestWith(db: Executor, organizationId: string, kind: string, subject: string, since: string, fragment: string): Promise<Pick<EventRow, "id" | "time"> | undefined> {
    return db
      .selectFrom("events")
      .select(["id", "time"])
      .where("organization_id", "=", organizationId)
      .where("subject", "=", subject)
      .where("kind", "=", kind)
      .where("time", ">=", since)
      .where(containsText(sql.ref("data"), fragment))
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst();
  },

  /** The newest events of an organization (of one subject, if given), oldest first. */
  async readLatest(db: Executor, organizationId: string, limit: number, subject?: string): Promise<EventRow[]> {
    const rows = await db
      .selectFrom("events")
      .select(EVENT_COLUMNS)
      .where("organization_id", "=", organizationId)
      .$if(subject !== undefined, (qb) => qb.where("subject", "=", subject!))
      .orderBy("seq", "desc")
      .limit(limit)
      .execute();
    return rows.reverse();
  },
};

/** Whether a comma-separated list of positions (`"3,4,9"`) is strictly ascending. */
export function ascending(list: string): boolean {
  let previous = -1;
  let value = 0;
  for (let i = 0; i < list.length; i++) {
    const code = list.charCodeAt(i);
    if (code === 44 /* , */) {
      if (value <= previous) return false;
      previous = value;
      value = 0;
    } else {
      value = value * 10 + (code - 48);
    }
  }
  return value > previous;
}

/** Rows per INSERT: 8 columns each, far below every parameter limit, and few statements per change. */
const APPEND_CHUNK = 500;
/** First key of the two-key advisory lock that serialises appends per organization. */
const APPEND_LOCK_SPACE = 0x5374;
/** Channel other Steward processes LISTEN on to wake held long polls; the payload is the organization id. */
export const NOTIFY_CHANNEL = "steward_events";
