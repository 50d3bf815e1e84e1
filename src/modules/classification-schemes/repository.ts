import { sql } from "kysely";
import type { Executor } from "../../platform/database/index.js";

export const classificationRepository = {
  /** The id of another scheme marked as the organization's default (status column `default`), if any. */
  async otherDefault(ex: Executor, organizationId: string, id: string): Promise<string | undefined> {
    const { rows } = await sql<{ id: string }>`select "id" from "resources"
      where "organization_id" = ${organizationId} and "kind" = 'classificationscheme' and "status" = 'default' and "id" <> ${id}`.execute(ex);
    return rows[0]?.id;
  },
};
