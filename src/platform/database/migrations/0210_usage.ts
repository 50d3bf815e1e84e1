import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";
import { serial } from "./serial.js";

/**
 * Usage traces (docs/lineage.md, "Usage"): each OpenTelemetry span that used a data product, an
 * output port or an access, with who used it and when, and the uses without an agreement found
 * in them (once per consumer, service, port and day).
 */
export default function migration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("usage_spans")
        .addColumn("row_id", serial(dialect))
        .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
        .addColumn("trace_id", "text", (c) => c.notNull())
        .addColumn("span_id", "text", (c) => c.notNull())
        .addColumn("scope_name", "text")
        .addColumn("service_name", "text")
        .addColumn("data_product_id", "text")
        .addColumn("output_port_id", "text")
        .addColumn("data_contract_id", "text")
        .addColumn("access_id", "text")
        // Who used it: "dataProduct", "team" or "service", and its id.
        .addColumn("consumer_type", "text", (c) => c.notNull())
        .addColumn("consumer_id", "text", (c) => c.notNull())
        .addColumn("start_time", "text", (c) => c.notNull())
        .addColumn("end_time", "text")
        // The team of the principal that posted it (null for organization principals).
        .addColumn("team_id", "text")
        // The resource, scope and span as sent, as JSON text.
        .addColumn("resource", "text", (c) => c.notNull())
        .addColumn("scope", "text", (c) => c.notNull())
        .addColumn("span", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      // A span sent again (a retry, or an update of the same span) is kept once: the newest wins.
      await db.schema.createIndex("usage_spans_once").unique().on("usage_spans").columns(["organization_id", "trace_id", "span_id"]).execute();
      await db.schema.createIndex("usage_spans_by_product").on("usage_spans").columns(["organization_id", "data_product_id", "start_time"]).execute();
      await db.schema.createIndex("usage_spans_by_access").on("usage_spans").columns(["organization_id", "access_id", "start_time"]).execute();
      await db.schema.createIndex("usage_spans_by_age").on("usage_spans").columns(["organization_id", "created_at"]).execute();
      // The periodic retention sweep looks across organizations.
      await db.schema.createIndex("usage_spans_by_arrival").on("usage_spans").columns(["created_at"]).execute();

      await db.schema
        .createTable("usage_violations")
        .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
        .addColumn("consumer_type", "text", (c) => c.notNull())
        .addColumn("consumer_id", "text", (c) => c.notNull())
        .addColumn("service_name", "text", (c) => c.notNull())
        .addColumn("data_product_id", "text", (c) => c.notNull())
        .addColumn("output_port_id", "text", (c) => c.notNull())
        // The UTC day (YYYY-MM-DD) of the use: one record per consumer, service, port and day.
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("trace_id", "text", (c) => c.notNull())
        .addColumn("span_id", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("usage_violations_once", ["organization_id", "consumer_type", "consumer_id", "service_name", "data_product_id", "output_port_id", "day"])
        .execute();
    },
  };
}
