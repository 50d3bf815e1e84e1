/**
 * What a person may do for a team, by their role in it (docs/identity.md, "Team roles"). A team
 * document lists its members with a `role`; the organization either uses the built-in roles below
 * or its own catalog (`/api/settings/team-roles`). Rules as data: roles grant permissions, and
 * each operation on a team's things needs one permission.
 */

export const TEAM_PERMISSIONS = [
  "RESOURCES_ADD",
  "RESOURCES_EDIT",
  "RESOURCES_DELETE",
  "CHANGE_REQUEST_SUBMIT",
  "CHANGE_REQUEST_APPROVE",
  "ACCESS_ADD",
  "ACCESS_EDIT",
  "ACCESS_DELETE",
  "ACCESS_REQUEST",
  "ACCESS_APPROVE",
  "ACCESS_TERMINATE",
  "TEAM_ADD",
  "TEAM_EDIT",
  "TEAM_DELETE",
  "TEAM_MEMBER_ADD",
  "TEAM_MEMBER_EDIT",
  "TEAM_MEMBER_DELETE",
  "INGESTION_EDIT",
] as const;

export type TeamPermission = (typeof TEAM_PERMISSIONS)[number];

export interface TeamRole {
  name: string;
  description?: string | null;
  rank?: number | null;
  permissions: TeamPermission[];
}

export type TeamRolesMode = "default" | "custom-team-roles";

/**
 * The built-in roles: being listed in a team's `members` lets a person do everything for the
 * team, whatever the role says. An organization that wants roles to differ defines its own
 * catalog; then only the catalog's permissions count.
 */
export const DEFAULT_TEAM_ROLES: readonly TeamRole[] = [
  { name: "owner", rank: 1, permissions: [...TEAM_PERMISSIONS] },
  { name: "member", rank: 2, permissions: [...TEAM_PERMISSIONS] },
];

/** Operations a person does for a team, and the permission each needs. */
export const OPERATION_PERMISSIONS = {
  "resource.create": "RESOURCES_ADD",
  "resource.update": "RESOURCES_EDIT",
  "resource.delete": "RESOURCES_DELETE",
  "access.request": "ACCESS_REQUEST",
  "access.update": "ACCESS_EDIT",
  "access.delete": "ACCESS_DELETE",
  "access.approve": "ACCESS_APPROVE",
  "access.reject": "ACCESS_APPROVE",
  "access.cancel": "ACCESS_TERMINATE",
  "team.update": "TEAM_EDIT",
  "team.delete": "TEAM_DELETE",
  "team.members": "TEAM_MEMBER_EDIT",
} as const satisfies Record<string, TeamPermission>;

export type TeamOperation = keyof typeof OPERATION_PERMISSIONS;

/** The roles in force for an organization. */
export function rolesInForce(mode: TeamRolesMode, custom: readonly TeamRole[]): readonly TeamRole[] {
  return mode === "custom-team-roles" ? custom : DEFAULT_TEAM_ROLES;
}

/**
 * What a person may do for one team: the permissions of their role in it. A role the catalog does
 * not know grants nothing; a person who is not a member of the team (no role) gets nothing.
 * Role names compare without case.
 */
export function teamPermissionsOf(roles: readonly TeamRole[], role: string | null | undefined): ReadonlySet<TeamPermission> {
  if (role == null) return new Set();
  const found = roles.find((r) => r.name.toLowerCase() === role.toLowerCase());
  // Under the built-in roles any role name is a member's; a custom catalog grants only what it names.
  if (!found && roles === DEFAULT_TEAM_ROLES) return new Set(TEAM_PERMISSIONS);
  return new Set(found?.permissions ?? []);
}

/** Whether a person with `role` in a team may do `operation` for it. */
export function mayDoForTeam(roles: readonly TeamRole[], role: string | null | undefined, operation: TeamOperation): boolean {
  return teamPermissionsOf(roles, role).has(OPERATION_PERMISSIONS[operation]);
}

/** Problems of a catalog sent for custom mode: duplicate names, unknown permissions, an empty catalog. */
export function catalogViolations(roles: readonly TeamRole[]): Array<{ field: string; message: string }> {
  const violations: Array<{ field: string; message: string }> = [];
  const seen = new Set<string>();
  roles.forEach((role, i) => {
    const key = role.name.toLowerCase();
    if (seen.has(key)) violations.push({ field: `team-roles[${i}].name`, message: `duplicates the role '${role.name}'` });
    seen.add(key);
    role.permissions.forEach((permission, j) => {
      if (!(TEAM_PERMISSIONS as readonly string[]).includes(permission)) violations.push({ field: `team-roles[${i}].permissions[${j}]`, message: `'${permission}' is not a team permission` });
    });
  });
  return violations;
}
