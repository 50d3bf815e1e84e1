import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";

/** People of the web app: accounts, their organizations, sessions and one-time setup links. */
export default function migration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("users")
        .addColumn("id", "text", (c) => c.primaryKey())
        // Lower-cased: one account per address, whatever its spelling.
        .addColumn("email", "text", (c) => c.notNull().unique())
        .addColumn("password_hash", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("memberships")
        .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("role", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("memberships_pk", ["organization_id", "user_id"])
        .execute();
      await db.schema.createIndex("memberships_by_user").on("memberships").columns(["user_id"]).execute();
      await db.schema
        .createTable("sessions")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
        .addColumn("organization_id", "text", (c) => c.references("organizations.id").onDelete("set null"))
        .addColumn("csrf_token", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("last_seen_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("setup_tokens")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
        // Absent for the first-start link, where the person chooses the address.
        .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
        .addColumn("role", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .addColumn("used_at", "text")
        .execute();
    },
  };
}
