import { optional, organizationRows, required } from "./columns.js";
import { upOnly } from "./up-only.js";

export default upOnly(async (db, dialect) => {
  await db.schema
    .createTable("accesses")
    .$call(organizationRows(dialect))
    .$call(required("text", "id", "status"))
    // Whether the access was ever approved: a canceled request that never was is never active.
    .addColumn("granted", "integer", (c) => c.notNull())
    // The state consumers were last told through Activated/Deactivated events.
    .addColumn("active", "integer", (c) => c.notNull())
    .$call(optional("text", "start_at", "end_at"))
    .$call(required("text", "provider_data_product_id", "provider_output_port_id", "provider_team_id", "consumer_type"))
    .$call(optional("text", "consumer_data_product_id", "consumer_team_id"))
    .addColumn("doc", "text", (c) => c.notNull())
    .addColumn("provisioning", "text")
    .$call(required("text", "created_at", "updated_at"))
    .addUniqueConstraint("accesses_identity", ["organization_id", "id"])
    .execute();
  await db.schema.createIndex("accesses_by_provider").on("accesses").columns(["organization_id", "provider_data_product_id", "provider_output_port_id"]).execute();
  await db.schema.createIndex("accesses_by_consumer").on("accesses").columns(["organization_id", "consumer_data_product_id"]).execute();
  // The scheduler's two questions: which granted accesses are due to start, which active ones to end.
  await db.schema.createIndex("accesses_due_start").on("accesses").columns(["active", "granted", "start_at"]).execute();
  await db.schema.createIndex("accesses_due_end").on("accesses").columns(["active", "end_at"]).execute();
});
