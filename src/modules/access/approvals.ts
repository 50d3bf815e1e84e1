import { sql } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import type { Approver } from "../../policies/rules/approvals.js";

/** The approvals given to an access that needs several (docs/policies.md); all SQL over them. */
export const approvalRepository = {
  /**
   * Records one principal's approval, after the access's others (its `position`); answers false
   * when it had approved already (it counts once). Called under the access's row lock.
   */
  async add(ex: Executor, organizationId: string, accessId: string, who: Approver, comment: string | undefined, at: string): Promise<boolean> {
    const roles = who.teamRoles === undefined ? null : JSON.stringify(who.teamRoles);
    const { numAffectedRows } = await sql`insert into "access_approvals" ("organization_id", "access_id", "principal", "scope", "team_ids", "team_roles", "comment", "created_at", "position")
      values (${organizationId}, ${accessId}, ${who.principal}, ${who.scope}, ${JSON.stringify(who.teamIds)}, ${roles}, ${comment ?? null}, ${at},
        (select coalesce(max("position"), 0) + 1 from "access_approvals" where "organization_id" = ${organizationId} and "access_id" = ${accessId}))
      on conflict ("organization_id", "access_id", "principal") do nothing`.execute(ex);
    return Number(numAffectedRows ?? 0) > 0;
  },

  /** The approvals in the order they were given. */
  async list(ex: Executor, organizationId: string, accessId: string): Promise<Approver[]> {
    const { rows } = await sql<{ principal: string; scope: Approver["scope"]; team_ids: string; team_roles: string | null }>`select "principal", "scope", "team_ids", "team_roles" from "access_approvals"
      where "organization_id" = ${organizationId} and "access_id" = ${accessId} order by coalesce("position", 0), "created_at", "principal"`.execute(ex);
    return rows.map((r) => ({
      principal: r.principal,
      scope: r.scope,
      teamIds: JSON.parse(r.team_ids) as string[],
      ...(r.team_roles !== null ? { teamRoles: JSON.parse(r.team_roles) as Record<string, string> } : {}),
    }));
  },

  async forget(ex: Executor, organizationId: string, accessId: string): Promise<void> {
    await sql`delete from "access_approvals" where "organization_id" = ${organizationId} and "access_id" = ${accessId}`.execute(ex);
  },
};
