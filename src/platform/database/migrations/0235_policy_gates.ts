import { upOnly } from "./up-only.js";

/**
 * What the access gates keep (docs/policies.md): when the scheduler next tries an activation that
 * an `access.activate` policy refused, and, for each approval, the team roles its principal held
 * (`eligible.teamRoles`) and its place in the order approvals were given (second-level approvers
 * of a contract's role count only after the first level is complete).
 */
export default upOnly(async (db) => {
  await db.schema.alterTable("accesses").addColumn("activation_retry_at", "text").execute();
  await db.schema.alterTable("access_approvals").addColumn("team_roles", "text").execute();
  await db.schema.alterTable("access_approvals").addColumn("position", "integer").execute();
});
