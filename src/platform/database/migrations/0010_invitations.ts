import { sql } from "kysely";
import { belongsToOrganization, required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * Accounts become global and organizations invite (docs/product.md §2). An invitation is bound to
 * (organization, address) and grants only that membership; the account's password is chosen by
 * the person who accepts it, never by the organization. Sign-in failures move from a
 * per-process map to a table every process shares.
 */
export default upOnly(async (db) => {
  await db.schema
    .createTable("invitations")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .$call(belongsToOrganization)
    // Lower-cased. Null only on the first-start setup link, where the person chooses the address.
    .addColumn("email", "text")
    .$call(required("text", "role", "created_at", "expires_at"))
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("invitations_by_address").on("invitations").columns(["organization_id", "email"]).execute();

  // Pending setup links keep working, now bound to their address.
  await sql`
        insert into invitations (token_hash, organization_id, email, role, created_at, expires_at, used_at)
        select s.token_hash, s.organization_id, u.email, s.role, s.created_at, s.expires_at, s.used_at
        from setup_tokens s left join users u on u.id = s.user_id
        where s.used_at is null and (s.user_id is null or u.password_hash is null)
      `.execute(db);
  // An account without a password was made by an organization, not by its owner: it is what
  // let one organization set the password of an address another had added. Its memberships
  // live on as the invitations copied above.
  await db.deleteFrom("memberships").where("user_id", "in", db.selectFrom("users").select("id").where("password_hash", "is", null)).execute();
  await db.deleteFrom("users").where("password_hash", "is", null).execute();
  await db.schema.dropTable("setup_tokens").execute();

  await db.schema
    .createTable("sign_in_failures")
    // SHA-256 of `address:<email>`, `client:<ip>` or `pair:<email> <ip>`: no address is kept in clear.
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("window_started_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sign_in_failures_by_window").on("sign_in_failures").columns(["window_started_at"]).execute();
});
