import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/**
 * Fewer indexes to keep up as run events arrive (docs/lineage.md, "Storage"), and the list of
 * events read in its order:
 *
 * - `lineage_edges_by_job` goes. The edges of a job are found through the job's events
 *   (`lineage_events_by_job`) and their edges (`lineage_edges_by_event`, which the cascade from
 *   an event needs anyway). Each new edge wrote an entry into that index at its job's place, a
 *   page of its own for almost every event of a batch.
 * - `lineage_events_by_age` (organization, arrival) goes: no query reads by it (the retention
 *   sweep, across organizations, reads `lineage_events_by_arrival`), and the list fell on it
 *   only to sort all of an organization's events for one page.
 * - `lineage_events_in_order` holds an organization's events in the order the list pages in,
 *   partial on a condition every row meets, as the lists' indexes of migration 0110.
 */
export default upOnly(async (db) => {
  await db.schema.dropIndex("lineage_edges_by_job").execute();
  await db.schema.dropIndex("lineage_events_by_age").execute();
  await db.schema.createIndex("lineage_events_in_order").on("lineage_events").columns(["organization_id", "row_id"]).where(sql.ref("row_id"), ">", 0).execute();
});
