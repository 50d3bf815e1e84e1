import type { Selectable } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import type { ApiKeysTable } from "../../platform/database/tables.js";

export type ApiKeyRow = Selectable<ApiKeysTable>;

export const apiKeyRepository = {
  async insert(ex: Executor, row: ApiKeyRow): Promise<void> {
    await ex.insertInto("api_keys").values(row).execute();
  },

  /** A page of the organization's keys, revoked ones included, oldest first. */
  async list(ex: Executor, organizationId: string, page: { offset: number; limit: number }): Promise<ApiKeyRow[]> {
    return ex
      .selectFrom("api_keys")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .orderBy("created_at")
      .orderBy("id")
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  },

  async findById(ex: Executor, organizationId: string, id: string): Promise<ApiKeyRow | undefined> {
    return ex.selectFrom("api_keys").selectAll().where("organization_id", "=", organizationId).where("id", "=", id).executeTakeFirst();
  },

  async findByHash(ex: Executor, secretHash: string): Promise<ApiKeyRow | undefined> {
    return ex.selectFrom("api_keys").selectAll().where("secret_hash", "=", secretHash).executeTakeFirst();
  },

  async revoke(ex: Executor, organizationId: string, id: string, at: string, by: string): Promise<boolean> {
    const result = await ex
      .updateTable("api_keys")
      .set({ revoked_at: at, revoked_by: by })
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async touch(ex: Executor, id: string, at: string): Promise<void> {
    await ex.updateTable("api_keys").set({ last_used_at: at }).where("id", "=", id).execute();
  },

  async countActiveForTeam(ex: Executor, organizationId: string, teamId: string): Promise<number> {
    const row = await ex
      .selectFrom("api_keys")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("organization_id", "=", organizationId)
      .where("team_id", "=", teamId)
      .where("revoked_at", "is", null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};
