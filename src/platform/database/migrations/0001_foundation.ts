import { serial } from "./serial.js";
import { belongsToOrganization, optional, organizationRows, required } from "./columns.js";
import { upOnly } from "./up-only.js";

export default upOnly(async (db, dialect) => {
  const autoId = serial(dialect);
  await db.schema
    .createTable("organizations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .$call(belongsToOrganization)
    .$call(required("text", "display_name", "scope"))
    .addColumn("team_id", "text")
    .addColumn("secret_hash", "text", (c) => c.notNull().unique())
    .addColumn("secret_hint", "text", (c) => c.notNull())
    .$call(optional("text", "expires_at_input", "expires_at"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .$call(optional("text", "last_used_at", "revoked_at"))
    .execute();
  await db.schema.createIndex("api_keys_by_organization").on("api_keys").columns(["organization_id", "created_at"]).execute();

  await db.schema
    .createTable("resources")
    .$call(organizationRows(dialect))
    .$call(required("text", "kind", "id"))
    .$call(optional("text", "title", "owner_team_id", "status"))
    .$call(required("text", "search_text", "doc", "created_at", "updated_at"))
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
    .$call(required("text", "organization_id", "kind", "subject", "time", "data"))
    .execute();
  // Every feed read is "this organization, after this position": one index range scan.
  await db.schema.createIndex("events_feed").on("events").columns(["organization_id", "seq"]).execute();
});
