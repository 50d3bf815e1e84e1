import { Type, type Static } from "@sinclair/typebox";
import type { Principal } from "../platform/auth.js";
import type { Clock } from "../platform/clock.js";
import type { Database } from "../platform/database/index.js";
import { badRequest, conflict } from "../platform/errors.js";
import { SafeText } from "../platform/http/shapes.js";
import { policy } from "../policies/index.js";
import { catalogViolations, DEFAULT_TEAM_ROLES, rolesInForce, type TeamPermission, type TeamRole } from "../policies/team-roles.js";
import { mappedRoles } from "./mapping.js";
import { identityRepository } from "./repository.js";

export const TeamRoleSchema = Type.Object(
  {
    name: SafeText({ minLength: 3, maxLength: 1000 }),
    description: Type.Optional(Type.Union([SafeText({ maxLength: 10_000 }), Type.Null()])),
    rank: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    permissions: Type.Array(SafeText({ maxLength: 64 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
);

export const TeamRolesSettingsSchema = Type.Object(
  {
    mode: Type.Union([Type.Literal("default"), Type.Literal("custom-team-roles")]),
    "team-roles": Type.Optional(Type.Array(TeamRoleSchema, { maxItems: 200 })),
  },
  { title: "TeamRolesSettings" },
);

export type TeamRolesSettings = Static<typeof TeamRolesSettingsSchema>;

/** `/api/settings/team-roles`: built-in team roles, or the organization's own catalog. */
export class TeamRolesService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** The roles in force for an organization: what `mayDoForTeam` judges with. */
  async rolesFor(organizationId: string): Promise<readonly TeamRole[]> {
    const { mode, roles } = await identityRepository.teamRoles(this.database.db, organizationId);
    return rolesInForce(mode, roles);
  }

  async get(p: Principal): Promise<TeamRolesSettings> {
    policy.manageMembers(p);
    const { mode, roles } = await identityRepository.teamRoles(this.database.db, p.organizationId);
    // In built-in mode a catalog kept from before is shown too (not in force), so a form switching back starts from it.
    return mode === "custom-team-roles" || roles.length > 0 ? { mode, "team-roles": sorted(roles) } : { mode };
  }

  async put(p: Principal, input: TeamRolesSettings): Promise<TeamRolesSettings> {
    policy.manageMembers(p);
    await this.database.db.transaction().execute(async (trx) => {
      const now = this.clock.now().toISOString();
      await identityRepository.lockSettings(trx, p.organizationId, this.database.dialect, now);
      const current = await identityRepository.teamRoles(trx, p.organizationId);
      if (input.mode === "default") {
        // The custom catalog is kept, so switching back restores it.
        await identityRepository.saveTeamRoles(trx, p.organizationId, "default", current.roles, now);
        return;
      }
      const catalog = input["team-roles"] ?? [];
      if (catalog.length === 0) throw conflict("A custom catalog needs at least one role: an empty one would take every permission from every team member.");
      const roles: TeamRole[] = catalog.map((r, i) => ({ name: r.name, description: r.description ?? null, rank: r.rank ?? i + 1, permissions: [...new Set(r.permissions)] as TeamPermission[] }));
      const violations = catalogViolations(roles);
      if (violations.length > 0) throw badRequest("The team roles are not valid.", violations);
      const names = new Set(roles.map((r) => r.name.toLowerCase()));
      const before = current.mode === "custom-team-roles" ? current.roles : DEFAULT_TEAM_ROLES;
      const dropped = before.filter((r) => !names.has(r.name.toLowerCase()));
      const assigned = await identityRepository.teamMemberRoles(trx, p.organizationId);
      const inUse = dropped.filter((r) => assigned.has(r.name.toLowerCase()));
      if (inUse.length > 0) throw conflict(`Role(s) ${inUse.map((r) => `'${r.name}'`).join(", ")} are still given to team members; change their role first.`);
      const mapped = mappedRoles((await identityRepository.settings(trx, p.organizationId)).mapping).filter((r) => !names.has(r.toLowerCase()));
      if (mapped.length > 0) throw conflict(`Role(s) ${mapped.map((r) => `'${r}'`).join(", ")} are given by the group mapping; change the mapping first.`);
      await identityRepository.saveTeamRoles(trx, p.organizationId, "custom-team-roles", roles, now);
    });
    return this.get(p);
  }
}

function sorted(roles: TeamRole[]): TeamRole[] {
  return [...roles].sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0));
}
