import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/** Each list's index: the organization (and the document's kind), then the order the list pages in. */
const IN_ORDER = [
  ["resources_in_order", "resources", ["organization_id", "kind", "row_id"]],
  ["accesses_in_order", "accesses", ["organization_id", "row_id"]],
  ["test_results_in_order", "test_results", ["organization_id", "row_id"]],
] as const;

/**
 * Lists page through one organization's rows in creation order (`order by row_id`), and no index
 * held them in that order. Each page read every row of the organization (of that kind, for
 * catalog documents) and sorted them all to return a thousand: with 100,000 assets a page cost
 * 40–60 ms of the database's time whichever page it was, spilling the sort to disk past the
 * middle, so paging through them all grew with the square of their number, and any key that may
 * read could make the database sort the organization's whole catalog once per request. In these
 * indexes a page is a walk from its offset: an unfiltered page of 1,000 assets took 0.5 ms on
 * SQLite (7.6 ms before), 3.3 ms at the 99th page (37 ms before).
 *
 * They are partial, on a condition every row meets (`row_id > 0`), for the reason of migration
 * 0091: they begin with the same columns as the identity constraints, and on a table not yet
 * analyzed PostgreSQL took such an index for a lookup of one row by its id, walking every row of
 * the organization. A partial index serves only a query that states its condition; the lists
 * state it (`inOrderIndex`), lookups by id do not.
 */
export default upOnly(async (db) => {
  for (const [name, table, columns] of IN_ORDER) {
    await db.schema.createIndex(name).on(table).columns([...columns]).where(sql.ref("row_id"), ">", 0).execute();
  }
});
