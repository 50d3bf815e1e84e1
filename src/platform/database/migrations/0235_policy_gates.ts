import type { Kysely, Migration } from "kysely";

/**
 * What the access gates keep (docs/policies.md): when the scheduler next tries an activation that
 * an `access.activate` policy refused, and, for each approval, the team roles its principal held
 * (`eligible.teamRoles`) and its place in the order approvals were given (second-level approvers
 * of a contract's role count only after the first level is complete).
 */
export default function migration(): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable("accesses").addColumn("activation_retry_at", "text").execute();
      await db.schema.alterTable("access_approvals").addColumn("team_roles", "text").execute();
      await db.schema.alterTable("access_approvals").addColumn("position", "integer").execute();
    },
  };
}
