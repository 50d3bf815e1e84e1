import { sql } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import type { Approver } from "../../policies/rules/verdicts.js";

/** The approvals given to an access that needs several (docs/policies.md); all SQL over them. */
export const approvalRepository = {
  /** Records one principal's approval; answers false when it had approved already (it counts once). */
  async add(ex: Executor, organizationId: string, accessId: string, who: Approver, comment: string | undefined, at: string): Promise<boolean> {
    const { numAffectedRows } = await sql`insert into "access_approvals" ("organization_id", "access_id", "principal", "scope", "team_ids", "comment", "created_at")
      values (${organizationId}, ${accessId}, ${who.principal}, ${who.scope}, ${JSON.stringify(who.teamIds)}, ${comment ?? null}, ${at})
      on conflict ("organization_id", "access_id", "principal") do nothing`.execute(ex);
    return Number(numAffectedRows ?? 0) > 0;
  },

  async list(ex: Executor, organizationId: string, accessId: string): Promise<Approver[]> {
    const { rows } = await sql<{ principal: string; scope: Approver["scope"]; team_ids: string }>`select "principal", "scope", "team_ids" from "access_approvals"
      where "organization_id" = ${organizationId} and "access_id" = ${accessId} order by "created_at", "principal"`.execute(ex);
    return rows.map((r) => ({ principal: r.principal, scope: r.scope, teamIds: JSON.parse(r.team_ids) as string[] }));
  },

  async forget(ex: Executor, organizationId: string, accessId: string): Promise<void> {
    await sql`delete from "access_approvals" where "organization_id" = ${organizationId} and "access_id" = ${accessId}`.execute(ex);
  },
};
