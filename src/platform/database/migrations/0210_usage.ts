import { belongsToOrganization, optional, organizationRows, required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * Usage traces (docs/lineage.md, "Usage"): each OpenTelemetry span that used a data product, an
 * output port or an access, with who used it and when, and the uses without an agreement found
 * in them (once per consumer, service, port and day).
 */
export default upOnly(async (db, dialect) => {
  await db.schema
    .createTable("usage_spans")
    .$call(organizationRows(dialect))
    .$call(required("text", "trace_id", "span_id"))
    .$call(optional("text", "scope_name", "service_name", "data_product_id", "output_port_id", "data_contract_id", "access_id"))
    // Who used it: "dataProduct", "team" or "service", and its id.
    .$call(required("text", "consumer_type", "consumer_id", "start_time"))
    .addColumn("end_time", "text")
    // The team of the principal that posted it (null for organization principals).
    .addColumn("team_id", "text")
    // The resource, scope and span as sent, as JSON text.
    .$call(required("text", "resource", "scope", "span", "created_at"))
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
    .$call(belongsToOrganization)
    .$call(required("text", "consumer_type", "consumer_id", "service_name", "data_product_id", "output_port_id"))
    // The UTC day (YYYY-MM-DD) of the use: one record per consumer, service, port and day.
    .$call(required("text", "day", "trace_id", "span_id", "created_at"))
    .addUniqueConstraint("usage_violations_once", ["organization_id", "consumer_type", "consumer_id", "service_name", "data_product_id", "output_port_id", "day"])
    .execute();
});
