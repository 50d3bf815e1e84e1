import { sql } from "kysely";
import { belongsToOrganization, required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * Fewer index entries written as run events arrive (docs/lineage.md), and
 * the list of events read in its order. A batch of events was bound by the index pages its entries
 * dirtied: an edge went into `lineage_edges_by_job` and `lineage_edges_by_dataset` at its job's and
 * its dataset's places, a page of its own for almost every event of a batch, and each such page is
 * written at the commit and again when the database file takes it in.
 *
 * - `lineage_edge_keys` holds each distinct job–dataset edge of an organization once. An edge seen
 *   again writes nothing there; the graph finds edges by dataset in it, each still carried by a
 *   stored event (a read checks, through the job's events and their edges, and the retention sweep
 *   removes those no event carries any more). It starts with the edges stored before.
 * - `lineage_edges_by_dataset` and `lineage_edges_by_job` go: the edges of a job are found through
 *   its events (`lineage_events_by_job`) and their edges (`lineage_edges_by_event`, which the
 *   cascade from an event needs anyway).
 * - `lineage_events_by_age` (organization, arrival) goes: no query reads by it (the retention
 *   sweep, across organizations, reads `lineage_events_by_arrival`), and the list fell on it only
 *   to sort all of an organization's events for one page.
 * - `lineage_events_in_order` holds an organization's events in the order the list pages in,
 *   partial on a condition every row meets, as the lists' indexes of migration 0110.
 */
export default upOnly(async (db) => {
  await db.schema
    .createTable("lineage_edge_keys")
    .$call(belongsToOrganization)
    .$call(required("text", "dataset_namespace", "dataset_name", "job_namespace", "job_name", "direction"))
    .addUniqueConstraint("lineage_edge_keys_once", ["organization_id", "dataset_namespace", "dataset_name", "job_namespace", "job_name", "direction"])
    .execute();
  await sql`insert into lineage_edge_keys (organization_id, dataset_namespace, dataset_name, job_namespace, job_name, direction)
        select distinct organization_id, dataset_namespace, dataset_name, job_namespace, job_name, direction from lineage_edges`.execute(db);
  await db.schema.dropIndex("lineage_edges_by_dataset").execute();
  await db.schema.dropIndex("lineage_edges_by_job").execute();
  await db.schema.dropIndex("lineage_events_by_age").execute();
  await db.schema.createIndex("lineage_events_in_order").on("lineage_events").columns(["organization_id", "row_id"]).where(sql.ref("row_id"), ">", 0).execute();
});
