import { sql, type DeleteQueryBuilder, type DeleteResult, type Kysely, type Selectable, type WhereInterface } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import { deleteMadeBefore, insertNew } from "../../platform/database/bulk.js";
import type { DB } from "../../platform/database/tables.js";

/** The tables of reads without an agreement (docs/lineage.md): lineage's, seen in run events, and usage's, seen in spans. */
export type ViolationTable = "lineage_violations" | "usage_violations";

/** The columns both tables have, by which they are listed and kept. */
type ViolationColumns = { organization_id: string; data_product_id: string; day: string; created_at: string };

/** All SQL over the reads without an agreement, in either table (lineage's or usage's): recorded once a day, listed per provider product, removed past the retention. */
export const violationRepository = {
  /** Records rows in few statements; answers, row by row, whether it is new (none yet with its `key`, the columns that make one a day). */
  async record<R extends Record<string, unknown>>(ex: Executor, table: ViolationTable, key: ReadonlyArray<keyof R & string>, rows: readonly R[]): Promise<boolean[]> {
    const stored = await insertNew(ex, table, key, rows, 1000);
    return stored.map((row) => row !== undefined);
  },

  /** A provider product's recorded reads without an agreement, newest first, at most `limit`. */
  async of<T extends ViolationTable>(ex: Executor, table: T, organizationId: string, dataProductId: string, limit: number): Promise<Array<Selectable<DB[T]>>> {
    const db = ex as unknown as Kysely<Record<ViolationTable, ViolationColumns>>;
    const rows = await db
      .selectFrom(table as ViolationTable)
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("data_product_id", "=", dataProductId)
      .orderBy("day", "desc")
      .orderBy("created_at", "desc")
      .limit(limit)
      .execute();
    return rows as unknown as Array<Selectable<DB[T]>>;
  },

  /**
   * Removes the recorded reads without an agreement of any organization made before `before`, of
   * at most `limit` instants (the records of one request share theirs), the oldest first.
   */
  deleteBefore(ex: Executor, table: ViolationTable, before: string, limit: number): Promise<number> {
    return deleteMadeBefore(ex, table, before, limit, "created_at");
  },
};

/**
 * A delete of run events or spans narrowed to those posted by principals of `teamIds` (a team
 * principal deletes only its own): none when the list is empty, and all when there is no list (an
 * organization principal).
 */
export function postedByTeams<Q extends DeleteQueryBuilder<DB, "lineage_events" | "usage_spans", DeleteResult>>(query: Q, teamIds: readonly string[] | undefined): Q {
  if (teamIds === undefined) return query;
  const posted = query as unknown as WhereInterface<{ posts: { team_id: string | null } }, "posts">;
  return (teamIds.length === 0 ? posted.where(sql<boolean>`1 = 0`) : posted.where("team_id", "in", teamIds)) as unknown as Q;
}
