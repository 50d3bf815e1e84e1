import { required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * Single sign-on and provisioning (docs/identity.md):
 * - `oidc_sign_ins`: a sign-in started at the OpenID provider, found again by its `state` (hashed)
 *   when the browser comes back, used once, whichever process answers.
 * - `oidc_identities`: which account an (issuer, subject) pair signed in as.
 * - `identity_settings`: per organization, the group mapping and whether password sign-in works.
 * - `sessions.signed_in_with`: how the session began, so turning off passwords ends password sessions.
 */
export default upOnly(async (db) => {
  await db.schema
    .createTable("oidc_sign_ins")
    .addColumn("state_hash", "text", (c) => c.primaryKey())
    .$call(required("text", "code_verifier", "nonce", "created_at", "expires_at"))
    .execute();
  await db.schema.createIndex("oidc_sign_ins_by_expiry").on("oidc_sign_ins").columns(["expires_at"]).execute();

  await db.schema
    .createTable("oidc_identities")
    .$call(required("text", "issuer", "subject"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("last_sign_in_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("oidc_identities_pk", ["issuer", "subject"])
    .execute();
  await db.schema.createIndex("oidc_identities_by_user").on("oidc_identities").columns(["user_id"]).execute();

  await db.schema
    .createTable("identity_settings")
    .addColumn("organization_id", "text", (c) => c.primaryKey().references("organizations.id").onDelete("cascade"))
    // JSON text of the mapping in its API shape ({ scimGroupMappings: [...] }).
    .addColumn("group_mapping", "text", (c) => c.notNull())
    .addColumn("password_sign_in", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema.alterTable("sessions").addColumn("signed_in_with", "text", (c) => c.notNull().defaultTo("password")).execute();
});
