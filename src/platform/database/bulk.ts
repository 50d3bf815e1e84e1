import type { Expression, Kysely } from "kysely";
import { chunked } from "./chunks.js";
import type { Executor } from "./index.js";

/**
 * Inserts many rows with few statements, `perStatement` rows each, keeping each unique key once:
 * a row whose key (`keyColumns`, a unique index of `table`) is stored already, or came earlier in
 * `rows`, is skipped. Answers, row by row, the `returning` columns of the rows stored now
 * (undefined for the skipped ones). Keep `perStatement` × columns under SQLite's 32,766 parameters.
 * Where the unique index holds an expression (such as `coalesce(column, '')`, so that a null
 * repeats too), `conflictTarget` is the index's list as written in it; rows of one call are still
 * compared by their key columns.
 */
export async function insertNew<R extends Record<string, unknown>>(
  ex: Executor,
  table: string,
  keyColumns: ReadonlyArray<keyof R & string>,
  rows: readonly R[],
  perStatement: number,
  returning: readonly string[] = [],
  conflictTarget?: Expression<unknown>,
): Promise<Array<Record<string, unknown> | undefined>> {
  const keyOf = (r: Record<string, unknown>) => JSON.stringify(keyColumns.map((c) => r[c] ?? null));
  const keys = rows.map(keyOf);
  const firstOf = new Map<string, number>();
  keys.forEach((key, i) => {
    if (!firstOf.has(key)) firstOf.set(key, i);
  });
  const unique = [...firstOf.values()].map((i) => rows[i]!);
  const stored = new Map<string, Record<string, unknown>>();
  // The table is named by the caller's repository; the builder's types do not follow a name held in a variable.
  const db = ex as unknown as Kysely<Record<string, Record<string, unknown>>>;
  for (const slice of chunked(unique, perStatement)) {
    const back = await db
      .insertInto(table)
      .values(slice)
      .onConflict((oc) => (conflictTarget === undefined ? oc.columns(keyColumns as string[]) : oc.expression(conflictTarget)).doNothing())
      .returning([...keyColumns, ...returning])
      .execute();
    for (const r of back) stored.set(keyOf(r), r);
  }
  return keys.map((key, i) => (firstOf.get(key) === i ? stored.get(key) : undefined));
}

/**
 * Removes up to `limit` rows of `table`, of any organization, made before `before` (its
 * `created_at`), the oldest first: by `row_id` where the table has one, else all rows of at most
 * `limit` instants (the rows one request makes share theirs). Answers how many went.
 */
export async function deleteMadeBefore(ex: Executor, table: string, before: string, limit: number, by: "row_id" | "created_at"): Promise<number> {
  const db = ex as unknown as Kysely<Record<string, { row_id: number; created_at: string }>>;
  const oldest = db.selectFrom(table).select(by).where("created_at", "<", before).orderBy("created_at").limit(limit);
  const result = await db
    .deleteFrom(table)
    .where(by, "in", by === "row_id" ? oldest : oldest.distinct())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
