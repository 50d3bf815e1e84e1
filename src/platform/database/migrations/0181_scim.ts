import { belongsToOrganization, required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * SCIM 2.0 provisioning (docs/identity.md): the users and groups an organization's identity
 * provider keeps in Steward. A SCIM user is linked to the account of its address; its document
 * is kept as the client sent it, beside the columns the server filters and decides on.
 */
export default upOnly(async (db) => {
  await db.schema
    .createTable("scim_users")
    .$call(belongsToOrganization)
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    // Lower-cased, unique per organization (userName is case-insensitive, RFC 7643 §4.1.1).
    .addColumn("user_name_key", "text", (c) => c.notNull())
    .addColumn("active", "integer", (c) => c.notNull())
    .addColumn("doc", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .$call(required("text", "created_at", "updated_at"))
    .addPrimaryKeyConstraint("scim_users_pk", ["organization_id", "id"])
    .addUniqueConstraint("scim_users_user_name", ["organization_id", "user_name_key"])
    .addUniqueConstraint("scim_users_account", ["organization_id", "user_id"])
    .execute();

  await db.schema
    .createTable("scim_groups")
    .$call(belongsToOrganization)
    .$call(required("text", "id", "display_name"))
    .addColumn("external_id", "text")
    .addColumn("version", "integer", (c) => c.notNull())
    .$call(required("text", "created_at", "updated_at"))
    .addPrimaryKeyConstraint("scim_groups_pk", ["organization_id", "id"])
    .execute();

  await db.schema
    .createTable("scim_group_members")
    .$call(required("text", "organization_id", "group_id", "scim_user_id"))
    .addPrimaryKeyConstraint("scim_group_members_pk", ["organization_id", "group_id", "scim_user_id"])
    .execute();
  await db.schema.createIndex("scim_group_members_by_user").on("scim_group_members").columns(["organization_id", "scim_user_id"]).execute();
});
