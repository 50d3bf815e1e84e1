import { sql, type Selectable } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import { containsText } from "../../platform/database/like.js";
import type { MembershipsTable, UsersTable } from "../../platform/database/tables.js";

export type UserRow = Selectable<UsersTable>;
export type Role = MembershipsTable["role"];

export interface MembershipRow {
  organizationId: string;
  organizationName: string;
  role: Role;
}

export interface MemberRow {
  userId: string;
  email: string;
  role: Role;
  createdAt: string;
}

/** SQL about accounts and memberships. Sessions, invitations and sign-in failures have their own files. */
export const peopleRepository = {
  async findUserByEmail(ex: Executor, email: string): Promise<UserRow | undefined> {
    return ex.selectFrom("users").selectAll().where("email", "=", email.toLowerCase()).executeTakeFirst();
  },

  async membershipByEmail(ex: Executor, organizationId: string, email: string): Promise<{ userId: string; role: Role } | undefined> {
    return ex
      .selectFrom("memberships")
      .innerJoin("users", "users.id", "memberships.user_id")
      .select(["users.id as userId", "memberships.role as role"])
      .where("memberships.organization_id", "=", organizationId)
      .where("users.email", "=", email)
      .executeTakeFirst();
  },

  async findUser(ex: Executor, id: string): Promise<UserRow | undefined> {
    return ex.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  },

  /** Creates the account unless the address has one already; answers whether it did. */
  async insertUserIfAbsent(ex: Executor, row: UserRow): Promise<boolean> {
    const result = await ex.insertInto("users").values(row).onConflict((oc) => oc.column("email").doNothing()).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  },

  async organizationName(ex: Executor, organizationId: string): Promise<string | undefined> {
    return (await ex.selectFrom("organizations").select("name").where("id", "=", organizationId).executeTakeFirst())?.name;
  },

  async countMembers(ex: Executor, organizationId: string): Promise<number> {
    const row = await ex
      .selectFrom("memberships")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("organization_id", "=", organizationId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  async setPassword(ex: Executor, userId: string, passwordHash: string): Promise<void> {
    await ex.updateTable("users").set({ password_hash: passwordHash }).where("id", "=", userId).execute();
  },

  async memberships(ex: Executor, userId: string): Promise<MembershipRow[]> {
    return ex
      .selectFrom("memberships")
      .innerJoin("organizations", "organizations.id", "memberships.organization_id")
      .select(["memberships.organization_id as organizationId", "organizations.name as organizationName", "memberships.role as role"])
      .where("memberships.user_id", "=", userId)
      .orderBy("organizations.name")
      .execute();
  },

  async membership(ex: Executor, organizationId: string, userId: string): Promise<Role | undefined> {
    const row = await ex
      .selectFrom("memberships")
      .select("role")
      .where("organization_id", "=", organizationId)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return row?.role;
  },

  /**
   * The person's role in the organization and whether the organization still lets people in with
   * a password (docs/identity.md): one query, read on every request a session cookie makes.
   */
  async sessionStanding(ex: Executor, organizationId: string, userId: string): Promise<{ role: Role; passwordSignIn: boolean } | undefined> {
    const row = await ex
      .selectFrom("memberships")
      .leftJoin("identity_settings", "identity_settings.organization_id", "memberships.organization_id")
      .select(["memberships.role as role", "identity_settings.password_sign_in as password"])
      .where("memberships.organization_id", "=", organizationId)
      .where("memberships.user_id", "=", userId)
      .executeTakeFirst();
    return row && { role: row.role, passwordSignIn: row.password === null || Number(row.password) !== 0 };
  },

  /** Organizations of `organizationIds` that turned password sign-in off. */
  async passwordOff(ex: Executor, organizationIds: string[]): Promise<Set<string>> {
    if (organizationIds.length === 0) return new Set();
    const rows = await ex
      .selectFrom("identity_settings")
      .select("organization_id")
      .where("organization_id", "in", organizationIds)
      .where("password_sign_in", "=", 0)
      .execute();
    return new Set(rows.map((r) => r.organization_id));
  },

  async members(ex: Executor, organizationId: string): Promise<MemberRow[]> {
    return ex
      .selectFrom("memberships")
      .innerJoin("users", "users.id", "memberships.user_id")
      .select(["users.id as userId", "users.email as email", "memberships.role as role", "memberships.created_at as createdAt"])
      .where("memberships.organization_id", "=", organizationId)
      .orderBy("users.email")
      .execute();
  },

  async setRole(ex: Executor, organizationId: string, userId: string, role: Role): Promise<void> {
    await ex.updateTable("memberships").set({ role }).where("organization_id", "=", organizationId).where("user_id", "=", userId).execute();
  },

  async upsertMembership(ex: Executor, row: Selectable<MembershipsTable>): Promise<void> {
    await ex
      .insertInto("memberships")
      .values(row)
      .onConflict((oc) => oc.columns(["organization_id", "user_id"]).doUpdateSet({ role: row.role }))
      .execute();
  },

  async deleteMembership(ex: Executor, organizationId: string, userId: string): Promise<boolean> {
    const result = await ex.deleteFrom("memberships").where("organization_id", "=", organizationId).where("user_id", "=", userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  async countOwners(ex: Executor, organizationId: string): Promise<number> {
    const row = await ex
      .selectFrom("memberships")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("organization_id", "=", organizationId)
      .where("role", "=", "owner")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Ids of the organization's teams whose document may list `email` among its members (confirmed by the caller). */
  async teamDocsMentioning(ex: Executor, organizationId: string, email: string): Promise<Array<{ id: string; doc: string }>> {
    return ex
      .selectFrom("resources")
      .select(["id", "doc"])
      .where("organization_id", "=", organizationId)
      .where("kind", "=", "team")
      // Documents are stored as JSON text, where the address appears in its JSON-escaped form.
      .where(containsText(sql<string>`lower(doc)`, JSON.stringify(email.toLowerCase()).slice(1, -1)))
      .orderBy("row_id")
      .execute();
  },
};
