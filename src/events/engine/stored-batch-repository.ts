import { sql } from "kysely";
import type { DialectName, Executor } from "../../platform/database/index.js";
import type { RenderedBatch } from "../repository.js";

/**
 * The first stored batch that ends after a position: where it starts and ends, and the batch
 * itself only when it starts exactly at that position (otherwise its body is not read).
 */
export interface StoredBatchAhead {
  afterSeq: number;
  lastSeq: number;
  batch?: RenderedBatch;
}

/** A stored batch without its body. */
export interface StoredBatchEntry {
  afterSeq: number;
  lastSeq: number;
  lastId: string;
  count: number;
  bytes: number;
}

/** The only SQL that touches the stored batches (`event_batches`). */
export const storedBatchRepository = {
  async ahead(db: Executor, organizationId: string, parts: string, afterSeq: number): Promise<StoredBatchAhead | undefined> {
    const { rows } = await sql<{ after_seq: number | string; last_seq: number | string; last_id: string; count: number; body: Buffer | string | null }>`
      select after_seq, last_seq, last_id, count, case when after_seq = ${afterSeq} then body end as body
      from event_batches
      where organization_id = ${organizationId} and parts = ${parts} and last_seq > ${afterSeq}
      order by last_seq limit 1`.execute(db);
    const [row] = rows;
    if (!row) return undefined;
    const lastSeq = Number(row.last_seq);
    const ahead: StoredBatchAhead = { afterSeq: Number(row.after_seq), lastSeq };
    if (row.body !== null) {
      const body = typeof row.body === "string" ? Buffer.from(row.body) : row.body;
      ahead.batch = { count: Number(row.count), lastSeq, lastId: row.last_id, body };
    }
    return ahead;
  },

  /**
   * Where the first `limit` stored batches that end after a position start and end, without their
   * bodies: what the feed cache needs to find their files (`bytes` is the body's length).
   */
  async aheadList(db: Executor, organizationId: string, parts: string, afterSeq: number, limit: number): Promise<StoredBatchEntry[]> {
    const { rows } = await sql<{ after_seq: number | string; last_seq: number | string; last_id: string; count: number; bytes: number | string }>`
      select after_seq, last_seq, last_id, count, octet_length(body) as bytes
      from event_batches
      where organization_id = ${organizationId} and parts = ${parts} and last_seq > ${afterSeq}
      order by last_seq limit ${limit}`.execute(db);
    return rows.map((row) => ({ afterSeq: Number(row.after_seq), lastSeq: Number(row.last_seq), lastId: row.last_id, count: Number(row.count), bytes: Number(row.bytes) }));
  },

  /** One stored batch's body, or undefined when no batch of this rendering starts there. */
  async body(db: Executor, organizationId: string, parts: string, afterSeq: number): Promise<Buffer | undefined> {
    const row = await db
      .selectFrom("event_batches")
      .select("body")
      .where("organization_id", "=", organizationId)
      .where("after_seq", "=", afterSeq)
      .where("parts", "=", parts)
      .executeTakeFirst();
    if (!row) return undefined;
    return typeof row.body === "string" ? Buffer.from(row.body) : row.body;
  },

  /** The position the organization's stored batches reach (0 when none is stored). */
  async end(db: Executor, organizationId: string, parts: string): Promise<number> {
    const row = await db
      .selectFrom("event_batches")
      .select((eb) => eb.fn.max("last_seq").as("end"))
      .where("organization_id", "=", organizationId)
      .where("parts", "=", parts)
      .executeTakeFirst();
    return Number(row?.end ?? 0);
  },

  /**
   * Stores a batch. Another process may have stored the same one first: then nothing changes. A
   * batch stored there for another rendering is replaced, so that the position is this one's.
   */
  async store(db: Executor, dialect: DialectName, organizationId: string, parts: string, afterSeq: number, batch: RenderedBatch): Promise<void> {
    const row = {
      organization_id: organizationId,
      after_seq: afterSeq,
      last_seq: batch.lastSeq,
      last_id: batch.lastId!,
      count: batch.count,
      parts,
      // PostgreSQL's column is text: a Buffer parameter would be sent as bytea.
      body: dialect === "postgres" ? batch.body.toString() : batch.body,
    };
    await db
      .insertInto("event_batches")
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(["organization_id", "after_seq"])
          .doUpdateSet({ last_seq: row.last_seq, last_id: row.last_id, count: row.count, parts, body: row.body })
          .where("event_batches.parts", "<>", parts),
      )
      .execute();
  },
};
