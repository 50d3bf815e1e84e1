import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";
import { serial } from "./serial.js";

/**
 * OpenLineage run events (docs/lineage.md): each event as sent, the job–dataset edges read out of
 * it for the graph, and the reads without an agreement found in them (once per job, port and day).
 */
export default function migration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("lineage_events")
        .addColumn("row_id", serial(dialect))
        .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("event_type", "text")
        .addColumn("event_time", "text", (c) => c.notNull())
        .addColumn("job_namespace", "text", (c) => c.notNull())
        .addColumn("job_name", "text", (c) => c.notNull())
        .addColumn("data_product_id", "text")
        .addColumn("output_port_name", "text")
        // The team of the principal that posted it (null for organization principals): who may delete it.
        .addColumn("team_id", "text")
        .addColumn("doc", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
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
        .addColumn("job_namespace", "text", (c) => c.notNull())
        .addColumn("job_name", "text", (c) => c.notNull())
        .addColumn("dataset_namespace", "text", (c) => c.notNull())
        .addColumn("dataset_name", "text", (c) => c.notNull())
        // "input": the job reads the dataset; "output": the job writes it.
        .addColumn("direction", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("lineage_edges_by_event").on("lineage_edges").columns(["event_row_id"]).execute();
      await db.schema.createIndex("lineage_edges_by_dataset").on("lineage_edges").columns(["organization_id", "dataset_namespace", "dataset_name"]).execute();
      await db.schema.createIndex("lineage_edges_by_job").on("lineage_edges").columns(["organization_id", "job_namespace", "job_name"]).execute();

      await db.schema
        .createTable("lineage_violations")
        .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
        .addColumn("job_namespace", "text", (c) => c.notNull())
        .addColumn("job_name", "text", (c) => c.notNull())
        .addColumn("data_product_id", "text", (c) => c.notNull())
        .addColumn("output_port_id", "text", (c) => c.notNull())
        // The UTC day (YYYY-MM-DD) of the read: one record per job, port and day.
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("consumer_data_product_id", "text", (c) => c.notNull())
        .addColumn("consumer_team_id", "text")
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("dataset_namespace", "text", (c) => c.notNull())
        .addColumn("dataset_name", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("lineage_violations_once", ["organization_id", "job_namespace", "job_name", "data_product_id", "output_port_id", "day"])
        .execute();
      await db.schema.createIndex("lineage_violations_by_product").on("lineage_violations").columns(["organization_id", "data_product_id", "day"]).execute();
    },
  };
}
