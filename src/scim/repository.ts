import type { Kysely, Selectable } from "kysely";
import type { DialectName, Executor } from "../platform/database/index.js";
import type { DB, ScimGroupsTable, ScimUsersTable } from "../platform/database/tables.js";

export type ScimUserRow = Selectable<ScimUsersTable>;
export type ScimGroupRow = Selectable<ScimGroupsTable>;

type ResourceTable = "scim_users" | "scim_groups";

/** The columns both tables of SCIM resources have. */
type ResourceColumns = { organization_id: string; id: string; version: number; created_at: string; updated_at: string };

/**
 * The statements the tables of SCIM users and groups share: an organization's rows, oldest first;
 * one row; its insert; and the update of `columns` made only while the row is at the version the
 * writer read (answering whether it was).
 */
function resourceRows<T extends ResourceTable>(table: T, columns: ReadonlyArray<keyof Selectable<DB[T]> & string>) {
  type Row = Selectable<DB[T]>;
  const db = (ex: Executor) => ex as unknown as Kysely<Record<ResourceTable, ResourceColumns>>;
  return {
    async all(ex: Executor, organizationId: string): Promise<Row[]> {
      const rows = await db(ex).selectFrom(table as ResourceTable).selectAll().where("organization_id", "=", organizationId).orderBy("created_at").orderBy("id").execute();
      return rows as unknown as Row[];
    },

    /** `lock` (PostgreSQL) holds the row until the transaction ends: concurrent writes of one resource queue instead of failing. */
    async one(ex: Executor, organizationId: string, id: string, lock?: DialectName): Promise<Row | undefined> {
      const row = await db(ex)
        .selectFrom(table as ResourceTable)
        .selectAll()
        .where("organization_id", "=", organizationId)
        .where("id", "=", id)
        .$if(lock === "postgres", (qb) => qb.forUpdate())
        .executeTakeFirst();
      return row as unknown as Row | undefined;
    },

    async insert(ex: Executor, row: Row): Promise<void> {
      await db(ex).insertInto(table as ResourceTable).values(row as unknown as ResourceColumns).execute();
    },

    /** Writes the row if its version is still `expected`; answers whether it did. */
    async update(ex: Executor, row: Row, expected: number): Promise<boolean> {
      const written = row as unknown as ResourceColumns & Record<string, unknown>;
      const result = await db(ex)
        .updateTable(table as ResourceTable)
        .set(Object.fromEntries(columns.map((column) => [column, written[column]])))
        .where("organization_id", "=", written.organization_id)
        .where("id", "=", written.id)
        .where("version", "=", expected)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

const users = resourceRows("scim_users", ["user_name_key", "active", "doc", "version", "updated_at"]);
const groups = resourceRows("scim_groups", ["display_name", "external_id", "version", "updated_at"]);

/** SQL of SCIM users and groups. */
export const scimRepository = {
  users: users.all,
  user: users.one,

  async userByName(ex: Executor, organizationId: string, key: string): Promise<ScimUserRow | undefined> {
    return ex.selectFrom("scim_users").selectAll().where("organization_id", "=", organizationId).where("user_name_key", "=", key).executeTakeFirst();
  },

  insertUser: users.insert,
  updateUser: users.update,

  async deleteUser(ex: Executor, organizationId: string, id: string): Promise<boolean> {
    await ex.deleteFrom("scim_group_members").where("organization_id", "=", organizationId).where("scim_user_id", "=", id).execute();
    const result = await ex.deleteFrom("scim_users").where("organization_id", "=", organizationId).where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  groups: groups.all,
  group: groups.one,
  insertGroup: groups.insert,
  updateGroup: groups.update,

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
