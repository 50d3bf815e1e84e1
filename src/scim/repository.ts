import type { Selectable } from "kysely";
import type { DialectName, Executor } from "../platform/database/index.js";
import type { ScimGroupsTable, ScimUsersTable } from "../platform/database/tables.js";

export type ScimUserRow = Selectable<ScimUsersTable>;
export type ScimGroupRow = Selectable<ScimGroupsTable>;

/** SQL of SCIM users and groups. */
export const scimRepository = {
  async users(ex: Executor, organizationId: string): Promise<ScimUserRow[]> {
    return ex.selectFrom("scim_users").selectAll().where("organization_id", "=", organizationId).orderBy("created_at").orderBy("id").execute();
  },

  /** `lock` (PostgreSQL) holds the row until the transaction ends: concurrent writes of one user queue instead of failing. */
  async user(ex: Executor, organizationId: string, id: string, lock?: DialectName): Promise<ScimUserRow | undefined> {
    return ex
      .selectFrom("scim_users")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .$if(lock === "postgres", (qb) => qb.forUpdate())
      .executeTakeFirst();
  },

  async userByName(ex: Executor, organizationId: string, key: string): Promise<ScimUserRow | undefined> {
    return ex.selectFrom("scim_users").selectAll().where("organization_id", "=", organizationId).where("user_name_key", "=", key).executeTakeFirst();
  },

  async insertUser(ex: Executor, row: ScimUserRow): Promise<void> {
    await ex.insertInto("scim_users").values(row).execute();
  },

  /** Writes the user if its version is still `expected`; answers whether it did. */
  async updateUser(ex: Executor, row: ScimUserRow, expected: number): Promise<boolean> {
    const result = await ex
      .updateTable("scim_users")
      .set({ user_name_key: row.user_name_key, active: row.active, doc: row.doc, version: row.version, updated_at: row.updated_at })
      .where("organization_id", "=", row.organization_id)
      .where("id", "=", row.id)
      .where("version", "=", expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async deleteUser(ex: Executor, organizationId: string, id: string): Promise<boolean> {
    await ex.deleteFrom("scim_group_members").where("organization_id", "=", organizationId).where("scim_user_id", "=", id).execute();
    const result = await ex.deleteFrom("scim_users").where("organization_id", "=", organizationId).where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  async groups(ex: Executor, organizationId: string): Promise<ScimGroupRow[]> {
    return ex.selectFrom("scim_groups").selectAll().where("organization_id", "=", organizationId).orderBy("created_at").orderBy("id").execute();
  },

  async group(ex: Executor, organizationId: string, id: string, lock?: DialectName): Promise<ScimGroupRow | undefined> {
    return ex
      .selectFrom("scim_groups")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .$if(lock === "postgres", (qb) => qb.forUpdate())
      .executeTakeFirst();
  },

  async insertGroup(ex: Executor, row: ScimGroupRow): Promise<void> {
    await ex.insertInto("scim_groups").values(row).execute();
  },

  async updateGroup(ex: Executor, row: ScimGroupRow, expected: number): Promise<boolean> {
    const result = await ex
      .updateTable("scim_groups")
      .set({ display_name: row.display_name, external_id: row.external_id, version: row.version, updated_at: row.updated_at })
      .where("organization_id", "=", row.organization_id)
      .where("id", "=", row.id)
      .where("version", "=", expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async deleteGroup(ex: Executor, organizationId: string, id: string): Promise<string[]> {
    const members = await scimRepository.members(ex, organizationId, id);
    await ex.deleteFrom("scim_group_members").where("organization_id", "=", organizationId).where("group_id", "=", id).execute();
    await ex.deleteFrom("scim_groups").where("organization_id", "=", organizationId).where("id", "=", id).execute();
    return members;
  },

  async members(ex: Executor, organizationId: string, groupId: string): Promise<string[]> {
    const rows = await ex.selectFrom("scim_group_members").select("scim_user_id").where("organization_id", "=", organizationId).where("group_id", "=", groupId).orderBy("scim_user_id").execute();
    return rows.map((r) => r.scim_user_id);
  },

  async setMembers(ex: Executor, organizationId: string, groupId: string, userIds: string[]): Promise<void> {
    await ex.deleteFrom("scim_group_members").where("organization_id", "=", organizationId).where("group_id", "=", groupId).execute();
    if (userIds.length > 0) {
      await ex.insertInto("scim_group_members").values(userIds.map((u) => ({ organization_id: organizationId, group_id: groupId, scim_user_id: u }))).execute();
    }
  },

  /** Names of the groups a SCIM user is in. */
  async groupsOf(ex: Executor, organizationId: string, scimUserId: string): Promise<Array<{ id: string; displayName: string }>> {
    return ex
      .selectFrom("scim_group_members as m")
      .innerJoin("scim_groups as g", (j) => j.onRef("g.organization_id", "=", "m.organization_id").onRef("g.id", "=", "m.group_id"))
      .select(["g.id as id", "g.display_name as displayName"])
      .where("m.organization_id", "=", organizationId)
      .where("m.scim_user_id", "=", scimUserId)
      .orderBy("g.display_name")
      .execute();
  },
};
