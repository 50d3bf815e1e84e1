import type { Selectable } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import type { MembershipsTable, SessionsTable, SetupTokensTable, UsersTable } from "../../platform/database/tables.js";

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type SetupTokenRow = Selectable<SetupTokensTable>;
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
  passwordSet: boolean;
}

/** All SQL about people: accounts, memberships, sessions and setup links. */
export const peopleRepository = {
  async findUserByEmail(ex: Executor, email: string): Promise<UserRow | undefined> {
    return ex.selectFrom("users").selectAll().where("email", "=", email.toLowerCase()).executeTakeFirst();
  },

  async findUser(ex: Executor, id: string): Promise<UserRow | undefined> {
    return ex.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async insertUser(ex: Executor, row: UserRow): Promise<void> {
    await ex.insertInto("users").values(row).execute();
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

  async members(ex: Executor, organizationId: string): Promise<MemberRow[]> {
    const rows = await ex
      .selectFrom("memberships")
      .innerJoin("users", "users.id", "memberships.user_id")
      .select(["users.id as userId", "users.email as email", "memberships.role as role", "memberships.created_at as createdAt", "users.password_hash as passwordHash"])
      .where("memberships.organization_id", "=", organizationId)
      .orderBy("users.email")
      .execute();
    return rows.map(({ passwordHash, ...r }) => ({ ...r, passwordSet: passwordHash !== null }));
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
    const pattern = `%${email.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return ex
      .selectFrom("resources")
      .select(["id", "doc"])
      .where("organization_id", "=", organizationId)
      .where("kind", "=", "team")
      .where((eb) => eb(eb.fn("lower", ["doc"]), "like", pattern))
      .orderBy("row_id")
      .execute();
  },

  async insertSession(ex: Executor, row: SessionRow): Promise<void> {
    await ex.insertInto("sessions").values(row).execute();
  },

  async findSession(ex: Executor, tokenHash: string): Promise<SessionRow | undefined> {
    return ex.selectFrom("sessions").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  },

  async touchSession(ex: Executor, id: string, lastSeenAt: string, expiresAt: string): Promise<void> {
    await ex.updateTable("sessions").set({ last_seen_at: lastSeenAt, expires_at: expiresAt }).where("id", "=", id).execute();
  },

  async setSessionOrganization(ex: Executor, id: string, organizationId: string | null): Promise<void> {
    await ex.updateTable("sessions").set({ organization_id: organizationId }).where("id", "=", id).execute();
  },

  async deleteSession(ex: Executor, id: string): Promise<void> {
    await ex.deleteFrom("sessions").where("id", "=", id).execute();
  },

  async deleteExpiredSessions(ex: Executor, now: string): Promise<void> {
    await ex.deleteFrom("sessions").where("expires_at", "<=", now).execute();
  },

  async insertSetupToken(ex: Executor, row: SetupTokenRow): Promise<void> {
    await ex.insertInto("setup_tokens").values(row).execute();
  },

  async findSetupToken(ex: Executor, tokenHash: string): Promise<SetupTokenRow | undefined> {
    return ex.selectFrom("setup_tokens").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  },

  /** Marks the token used unless it already was; answers whether this call used it. */
  async useSetupToken(ex: Executor, tokenHash: string, at: string): Promise<boolean> {
    const result = await ex.updateTable("setup_tokens").set({ used_at: at }).where("token_hash", "=", tokenHash).where("used_at", "is", null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },
};
