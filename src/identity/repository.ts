import type { DialectName, Executor } from "../platform/database/index.js";
import type { OidcSignInsTable } from "../platform/database/tables.js";
import type { TeamRole, TeamRolesMode } from "../policies/team-roles.js";
import { EMPTY_MAPPING, type GroupMapping } from "./mapping.js";

/** SQL of single sign-on: sign-ins under way, linked identities, per-organization settings. */
export const identityRepository = {
  async insertSignIn(ex: Executor, row: OidcSignInsTable): Promise<void> {
    await ex.deleteFrom("oidc_sign_ins").where("expires_at", "<=", row.created_at).execute();
    await ex.insertInto("oidc_sign_ins").values(row).execute();
  },

  /** Takes the sign-in out, so a `state` works once, in whichever process it comes back to. */
  async takeSignIn(ex: Executor, stateHash: string, now: string): Promise<OidcSignInsTable | undefined> {
    const row = await ex.deleteFrom("oidc_sign_ins").where("state_hash", "=", stateHash).returningAll().executeTakeFirst();
    return row && row.expires_at > now ? row : undefined;
  },

  async identityUser(ex: Executor, issuer: string, subject: string): Promise<string | undefined> {
    return (await ex.selectFrom("oidc_identities").select("user_id").where("issuer", "=", issuer).where("subject", "=", subject).executeTakeFirst())?.user_id;
  },

  async linkIdentity(ex: Executor, issuer: string, subject: string, userId: string, now: string): Promise<void> {
    await ex
      .insertInto("oidc_identities")
      .values({ issuer, subject, user_id: userId, last_sign_in_at: now })
      .onConflict((oc) => oc.columns(["issuer", "subject"]).doUpdateSet({ user_id: userId, last_sign_in_at: now }))
      .execute();
  },

  /** Owners of the organization with an account linked to the provider (one provider per server). */
  async ownersSignedInWithSso(ex: Executor, organizationId: string): Promise<number> {
    const row = await ex
      .selectFrom("memberships")
      .innerJoin("oidc_identities", "oidc_identities.user_id", "memberships.user_id")
      .select((eb) => eb.fn.count<number>("memberships.user_id").distinct().as("n"))
      .where("memberships.organization_id", "=", organizationId)
      .where("memberships.role", "=", "owner")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /**
   * Makes sure the organization's settings row exists and, on PostgreSQL, locks it until the
   * transaction commits: the group mapping and the team-role catalog are checked against each
   * other, so their writes take turns (SQLite has one writer and needs no lock).
   */
  async lockSettings(ex: Executor, organizationId: string, dialect: DialectName, now: string): Promise<void> {
    await ex
      .insertInto("identity_settings")
      .values({ organization_id: organizationId, group_mapping: JSON.stringify(EMPTY_MAPPING), password_sign_in: 1, updated_at: now })
      .onConflict((oc) => oc.column("organization_id").doNothing())
      .execute();
    if (dialect === "postgres") await ex.selectFrom("identity_settings").select("organization_id").where("organization_id", "=", organizationId).forUpdate().execute();
  },

  async settings(ex: Executor, organizationId: string): Promise<{ mapping: GroupMapping; passwordSignIn: boolean }> {
    const row = await ex.selectFrom("identity_settings").selectAll().where("organization_id", "=", organizationId).executeTakeFirst();
    return row ? { mapping: JSON.parse(row.group_mapping) as GroupMapping, passwordSignIn: Number(row.password_sign_in) !== 0 } : { mapping: EMPTY_MAPPING, passwordSignIn: true };
  },

  /** Every organization with a non-empty mapping, for applying a person's groups at sign-in. */
  async mappings(ex: Executor): Promise<Array<{ organizationId: string; mapping: GroupMapping }>> {
    const rows = await ex.selectFrom("identity_settings").select(["organization_id", "group_mapping"]).where("group_mapping", "!=", JSON.stringify(EMPTY_MAPPING)).execute();
    return rows.map((r) => ({ organizationId: r.organization_id, mapping: JSON.parse(r.group_mapping) as GroupMapping }));
  },

  async teamRoles(ex: Executor, organizationId: string): Promise<{ mode: TeamRolesMode; roles: TeamRole[] }> {
    const row = await ex.selectFrom("identity_settings").select(["team_roles_mode", "team_roles"]).where("organization_id", "=", organizationId).executeTakeFirst();
    return row ? { mode: row.team_roles_mode as TeamRolesMode, roles: JSON.parse(row.team_roles) as TeamRole[] } : { mode: "default", roles: [] };
  },

  /** The roles the organization's team documents give their members, lower-cased. */
  async teamMemberRoles(ex: Executor, organizationId: string): Promise<Set<string>> {
    const rows = await ex.selectFrom("resources").select("doc").where("organization_id", "=", organizationId).where("kind", "=", "team").execute();
    const roles = new Set<string>();
    for (const row of rows) {
      const members = (JSON.parse(row.doc) as { members?: unknown }).members;
      if (!Array.isArray(members)) continue;
      for (const m of members) if (typeof m?.role === "string") roles.add(m.role.toLowerCase());
    }
    return roles;
  },

  async saveTeamRoles(ex: Executor, organizationId: string, mode: TeamRolesMode, roles: TeamRole[], now: string): Promise<void> {
    const text = JSON.stringify(roles);
    await ex
      .insertInto("identity_settings")
      .values({ organization_id: organizationId, group_mapping: JSON.stringify(EMPTY_MAPPING), password_sign_in: 1, updated_at: now, team_roles_mode: mode, team_roles: text })
      .onConflict((oc) => oc.column("organization_id").doUpdateSet({ team_roles_mode: mode, team_roles: text, updated_at: now }))
      .execute();
  },

  async saveSettings(ex: Executor, organizationId: string, settings: { mapping?: GroupMapping; passwordSignIn?: boolean }, now: string): Promise<void> {
    const current = await identityRepository.settings(ex, organizationId);
    const row = {
      organization_id: organizationId,
      group_mapping: JSON.stringify(settings.mapping ?? current.mapping),
      password_sign_in: (settings.passwordSignIn ?? current.passwordSignIn) ? 1 : 0,
      updated_at: now,
    };
    await ex
      .insertInto("identity_settings")
      .values(row)
      .onConflict((oc) => oc.column("organization_id").doUpdateSet({ group_mapping: row.group_mapping, password_sign_in: row.password_sign_in, updated_at: now }))
      .execute();
  },
};
