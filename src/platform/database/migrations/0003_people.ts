import { belongsToOrganization, required } from "./columns.js";
import { upOnly } from "./up-only.js";

/** People of the web app: accounts, their organizations, sessions and one-time setup links. */
export default upOnly(async (db) => {
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
    .$call(belongsToOrganization)
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .$call(required("text", "role", "created_at"))
    .addPrimaryKeyConstraint("memberships_pk", ["organization_id", "user_id"])
    .execute();
  await db.schema.createIndex("memberships_by_user").on("memberships").columns(["user_id"]).execute();
  await db.schema
    .createTable("sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("organization_id", "text", (c) => c.references("organizations.id").onDelete("set null"))
    .$call(required("text", "csrf_token", "created_at", "last_seen_at", "expires_at"))
    .execute();
  await db.schema
    .createTable("setup_tokens")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .$call(belongsToOrganization)
    // Absent for the first-start link, where the person chooses the address.
    .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
    .$call(required("text", "role", "created_at", "expires_at"))
    .addColumn("used_at", "text")
    .execute();
});
