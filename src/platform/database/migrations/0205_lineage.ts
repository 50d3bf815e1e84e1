import { serial } from "./serial.js";
import { belongsToOrganization, optional, organizationRows, required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * OpenLineage run events (docs/lineage.md): each event as sent, the job–dataset edges read out of
 * it for the graph, and the reads without an agreement found in them (once per job, port and day).
 */
export default upOnly(async (db, dialect) => {
  await db.schema
    .createTable("lineage_events")
    .$call(organizationRows(dialect))
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("event_type", "text")
    .$call(required("text", "event_time", "job_namespace", "job_name"))
    .$call(optional("text", "data_product_id", "output_port_name"))
    // The team of the principal that posted it (null for organization principals): who may delete it.
    .addColumn("team_id", "text")
    .$call(required("text", "doc", "created_at"))
    .execute();
  // A client that sends an event again (a retry after a lost answer) stores it once.
  await db.schema
    .createIndex("lineage_events_by_run")
    .unique()
    .on("lineage_events")
    .columns(["organization_id", "run_id", "job_namespace", "job_name", "event_type", "event_time"])
    .execute();
  await db.schema.createIndex("lineage_events_by_job").on("lineage_events").columns(["organization_id", "job_namespace", "job_name"]).execute();
  await db.schema.createIndex("lineage_events_by_product").on("lineage_events").columns(["organization_id", "data_product_id"]).execute();
  await db.schema.createIndex("lineage_events_by_age").on("lineage_events").columns(["organization_id", "created_at"]).execute();
  // The periodic retention sweep looks across organizations.
  await db.schema.createIndex("lineage_events_by_arrival").on("lineage_events").columns(["created_at"]).execute();

  await db.schema
    .createTable("lineage_edges")
    .addColumn("row_id", serial(dialect))
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("event_row_id", "bigint", (c) => c.notNull().references("lineage_events.row_id").onDelete("cascade"))
    .$call(required("text", "job_namespace", "job_name", "dataset_namespace", "dataset_name"))
    // "input": the job reads the dataset; "output": the job writes it.
    .addColumn("direction", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("lineage_edges_by_event").on("lineage_edges").columns(["event_row_id"]).execute();
  await db.schema.createIndex("lineage_edges_by_dataset").on("lineage_edges").columns(["organization_id", "dataset_namespace", "dataset_name"]).execute();
  await db.schema.createIndex("lineage_edges_by_job").on("lineage_edges").columns(["organization_id", "job_namespace", "job_name"]).execute();

  await db.schema
    .createTable("lineage_violations")
    .$call(belongsToOrganization)
    .$call(required("text", "job_namespace", "job_name", "data_product_id", "output_port_id"))
    // The UTC day (YYYY-MM-DD) of the read: one record per job, port and day.
    .$call(required("text", "day", "consumer_data_product_id"))
    .addColumn("consumer_team_id", "text")
    .$call(required("text", "run_id", "dataset_namespace", "dataset_name", "created_at"))
    .addUniqueConstraint("lineage_violations_once", ["organization_id", "job_namespace", "job_name", "data_product_id", "output_port_id", "day"])
    .execute();
  await db.schema.createIndex("lineage_violations_by_product").on("lineage_violations").columns(["organization_id", "data_product_id", "day"]).execute();
});
