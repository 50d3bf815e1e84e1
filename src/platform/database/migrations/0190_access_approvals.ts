import { belongsToOrganization, required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * The approvals given to an access that needs several (docs/policies.md): one row per access and
 * principal, so the same person approving twice counts once. The teams are those the principal
 * acted for when it approved, as JSON text.
 */
export default upOnly(async (db) => {
  await db.schema
    .createTable("access_approvals")
    .$call(belongsToOrganization)
    .$call(required("text", "access_id", "principal", "scope", "team_ids"))
    .addColumn("comment", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("access_approvals_identity", ["organization_id", "access_id", "principal"])
    .execute();
});
