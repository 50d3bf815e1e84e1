import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/**
 * A lineage event sent again is kept once, with or without `eventType` (docs/lineage.md): the
 * unique key of stored events takes a missing type as the empty text, since both databases let
 * rows whose key holds a null repeat. The copies stored before are removed, with their edges; the
 * earliest of each stays.
 */
export default upOnly(async (db) => {
  const later = sql`exists (select 1 from lineage_events kept
        where kept.organization_id = e.organization_id and kept.run_id = e.run_id
          and kept.job_namespace = e.job_namespace and kept.job_name = e.job_name
          and coalesce(kept.event_type, '') = coalesce(e.event_type, '') and kept.event_time = e.event_time
          and kept.row_id < e.row_id)`;
  await sql`delete from lineage_edges where event_row_id in (select e.row_id from lineage_events e where ${later})`.execute(db);
  await sql`delete from lineage_events where row_id in (select e.row_id from lineage_events e where ${later})`.execute(db);
  await db.schema.dropIndex("lineage_events_by_run").execute();
  await sql`create unique index lineage_events_by_run on lineage_events
        (organization_id, run_id, job_namespace, job_name, (coalesce(event_type, '')), event_time)`.execute(db);
});
