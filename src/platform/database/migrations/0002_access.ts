import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";
import { serial } from "./serial.js";

export default function migration(dialect: DialectName): Migration {
  const autoId = serial(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("accesses")
        .addColumn("row_id", autoId)
        .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
        .addColumn("id", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        // Whether the access was ever approved: a canceled request that never was is never active.
        .addColumn("granted", "integer", (c) => c.notNull())
        // The state consumers were last told through Activated/Deactivated events.
        .addColumn("active", "integer", (c) => c.notNull())
        .addColumn("start_at", "text")
        .addColumn("end_at", "text")
        .addColumn("provider_data_product_id", "text", (c) => c.notNull())
        .addColumn("provider_output_port_id", "text", (c) => c.notNull())
        .addColumn("provider_team_id", "text", (c) => c.notNull())
        .addColumn("consumer_type", "text", (c) => c.notNull())
        .addColumn("consumer_data_product_id", "text")
        .addColumn("consumer_team_id", "text")
        .addColumn("doc", "text", (c) => c.notNull())
        .addColumn("provisioning", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addUniqueConstraint("accesses_identity", ["organization_id", "id"])
        .execute();
      await db.schema.createIndex("accesses_by_provider").on("accesses").columns(["organization_id", "provider_data_product_id", "provider_output_port_id"]).execute();
      await db.schema.createIndex("accesses_by_consumer").on("accesses").columns(["organization_id", "consumer_data_product_id"]).execute();
      // The scheduler's two questions: which granted accesses are due to start, which active ones to end.
      await db.schema.createIndex("accesses_due_start").on("accesses").columns(["active", "granted", "start_at"]).execute();
      await db.schema.createIndex("accesses_due_end").on("accesses").columns(["active", "end_at"]).execute();
    },
  };
}
