import { sql } from "kysely";
import type { Executor } from "../../platform/database/index.js";

export const classificationRepository = {
  /** The ids of the other schemes marked as the organization's default (status column `default`): one at most. */
  async otherDefaults(ex: Executor, organizationId: string, id: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`select "id" from "resources"
      where "organization_id" = ${organizationId} and "kind" = 'classificationscheme' and "status" = 'default' and "id" <> ${id} order by "id"`.execute(ex);
    return rows.map((r) => r.id);
  },
};
