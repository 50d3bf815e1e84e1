import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";
import { serial } from "./serial.js";

export default function migration(dialect: DialectName): Migration {
  const autoId = serial(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("organizations")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull().unique())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("api_keys")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
        .addColumn("display_name", "text", (c) => c.notNull())
        .addColumn("scope", "text", (c) => c.notNull())
        .addColumn("team_id", "text")
        .addColumn("secret_hash", "text", (c) => c.notNull().unique())
        .addColumn("secret_hint", "text", (c) => c.notNull())
        .addColumn("expires_at_input", "text")
        .addColumn("expires_at", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("last_used_at", "text")
        .addColumn("revoked_at", "text")
        .execute();
      await db.schema.createIndex("api_keys_by_organization").on("api_keys").columns(["organization_id", "created_at"]).execute();

      await db.schema
        .createTable("resources")
        .addColumn("row_id", autoId)
        .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull())
        .addColumn("title", "text")
        .addColumn("owner_team_id", "text")
        .addColumn("status", "text")
        .addColumn("search_text", "text", (c) => c.notNull())
        .addColumn("doc", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addUniqueConstraint("resources_identity", ["organization_id", "kind", "id"])
        .execute();
      await db.schema
        .createIndex("resources_by_owner")
        .on("resources")
        .columns(["organization_id", "kind", "owner_team_id"])
        .execute();

      await db.schema
        .createTable("events")
        .addColumn("seq", autoId)
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("organization_id", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("time", "text", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .execute();
      // Every feed read is "this organization, after this position": one index range scan.
      await db.schema.createIndex("events_feed").on("events").columns(["organization_id", "seq"]).execute();
    },
  };
}
