import { sql } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import { containsText } from "../../platform/database/like.js";

const BATCH = 100;

/** SQL about where tags are used. */
export const tagRepository = {
  /**
   * Ids of up to `limit` assets of the organization that have `tag` among their assigned tags.
   * The stored JSON text is searched for the tag as Steward writes it (a JSON string), a batch at
   * a time, and each candidate's `assignedTags` is then checked exactly.
   */
  async assetsAssigning(ex: Executor, organizationId: string, tag: string, limit: number): Promise<string[]> {
    const found: string[] = [];
    let after = 0;
    for (;;) {
      const rows = await ex
        .selectFrom("resources")
        .select(["row_id", "id", "doc"])
        .where("organization_id", "=", organizationId)
        .where("kind", "=", "asset")
        .where("row_id", ">", after)
        .where(containsText(sql.ref("doc"), JSON.stringify(tag)))
        .orderBy("row_id")
        .limit(BATCH)
        .execute();
      for (const row of rows) {
        const assigned = (JSON.parse(row.doc) as { assignedTags?: unknown }).assignedTags;
        if (Array.isArray(assigned) && assigned.includes(tag)) found.push(row.id);
        if (found.length >= limit) return found;
      }
      if (rows.length < BATCH) return found;
      after = Number(rows[rows.length - 1].row_id);
    }
  },
};
