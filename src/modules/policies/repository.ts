import { sql } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import type { Policy } from "./shapes.js";

/** Most policies a decision considers: an organization has dozens, not thousands. */
export const MAX_ENFORCED_POLICIES = 1000;

export const policyRepository = {
  /** The organization's Accepted policies, oldest first (the `status` column is the policy's status). */
  async accepted(ex: Executor, organizationId: string): Promise<Policy[]> {
    const { rows } = await sql<{ doc: string }>`select "doc" from "resources"
      where "organization_id" = ${organizationId} and "kind" = 'policy' and "status" = 'Accepted'
      order by "row_id" limit ${MAX_ENFORCED_POLICIES}`.execute(ex);
    return rows.map((r) => JSON.parse(r.doc) as Policy);
  },

};
