import { sql, type RawBuilder } from "kysely";

/**
 * The condition of the lists' `…_in_order` indexes (migration 0110), which every row meets. A
 * list that pages in creation order states it so that the database may read the page from that
 * index instead of sorting all the organization's rows; a lookup by id never states it, and so
 * can never be planned on that index. `rowId` is the `row_id` column as the query names it.
 */
export function inOrderIndex(rowId: "row_id" | `${string}.row_id`): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(rowId)} > 0`;
}
