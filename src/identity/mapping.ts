import { Type, type Static } from "@sinclair/typebox";
import { SafeText } from "../platform/http/shapes.js";

/**
 * The group mapping (docs/identity.md): which groups of the OpenID provider or the SCIM client
 * make a person an owner of the organization, and which make them a member of a team in a role.
 * Kept as data; `mappedStanding` applies it and is tested without HTTP.
 */
export const GroupMappingEntrySchema = Type.Object(
  {
    scimGroup: SafeText({ minLength: 1, maxLength: 256, description: "The group's name as the provider sends it." }),
    type: Type.Union([Type.Literal("organizationOwner"), Type.Literal("teamMemberRole")]),
    teamId: Type.Optional(SafeText({ minLength: 1, maxLength: 256, description: "The team; required when type is teamMemberRole." })),
    teamMemberRole: Type.Optional(SafeText({ minLength: 1, maxLength: 128, description: "The role in the team; required when type is teamMemberRole." })),
  },
  { additionalProperties: false },
);

export const GroupMappingSchema = Type.Object(
  { scimGroupMappings: Type.Array(GroupMappingEntrySchema, { maxItems: 1000 }) },
  { title: "ScimMappingConfiguration", additionalProperties: false },
);

export type GroupMapping = Static<typeof GroupMappingSchema>;
export type GroupMappingEntry = Static<typeof GroupMappingEntrySchema>;

export const EMPTY_MAPPING: GroupMapping = { scimGroupMappings: [] };

/** Entries a schema cannot judge alone: a team role needs its team and its role. */
export function mappingViolations(mapping: GroupMapping): Array<{ field: string; message: string }> {
  const violations: Array<{ field: string; message: string }> = [];
  mapping.scimGroupMappings.forEach((entry, i) => {
    if (entry.type !== "teamMemberRole") return;
    if (entry.teamId === undefined) violations.push({ field: `scimGroupMappings[${i}].teamId`, message: "is required when type is teamMemberRole" });
    if (entry.teamMemberRole === undefined) violations.push({ field: `scimGroupMappings[${i}].teamMemberRole`, message: "is required when type is teamMemberRole" });
  });
  return violations;
}

/**
 * Team entries whose role is none of `known` (the organization's team roles: those in force and
 * the kept catalog), compared without case as team roles are. Such an entry would list people in
 * a role that grants nothing, so a typo is refused where it is made. A team that does not exist
 * yet is no fault: entries for it do nothing until it is created (docs/identity.md).
 */
export function unknownRoleViolations(mapping: GroupMapping, known: readonly string[]): Array<{ field: string; message: string }> {
  const names = new Set(known.map((n) => n.toLowerCase()));
  const listed = [...new Set(known)].map((n) => `'${n}'`).join(", ");
  return mapping.scimGroupMappings.flatMap((entry, i) =>
    entry.type === "teamMemberRole" && entry.teamMemberRole !== undefined && !names.has(entry.teamMemberRole.toLowerCase())
      ? [{ field: `scimGroupMappings[${i}].teamMemberRole`, message: `names no team role of the organization (roles: ${listed})` }]
      : [],
  );
}

/** The team roles a mapping's entries give, as written. */
export function mappedRoles(mapping: GroupMapping): string[] {
  return [...new Set(mapping.scimGroupMappings.flatMap((e) => (e.type === "teamMemberRole" && e.teamMemberRole !== undefined ? [e.teamMemberRole] : [])))];
}

export interface MappedStanding {
  /** Whether any entry names one of the person's groups. */
  matched: boolean;
  /** `owner` when a group makes the person an organization owner, otherwise `member` (when matched). */
  role: "owner" | "member" | null;
  /** Whether the mapping decides owners at all: only then may a missing owner group lower a role. */
  decidesOwners: boolean;
  /** Teams the groups put the person in, one role per team (the first entry that names the team wins). */
  teams: Array<{ teamId: string; role: string }>;
}

/** What the person's groups make of them in one organization. Group names compare exactly. */
export function mappedStanding(mapping: GroupMapping, groups: readonly string[]): MappedStanding {
  const mine = new Set(groups);
  const entries = mapping.scimGroupMappings.filter((e) => mine.has(e.scimGroup));
  const teams = new Map<string, string>();
  for (const e of entries) if (e.type === "teamMemberRole" && e.teamId && e.teamMemberRole && !teams.has(e.teamId)) teams.set(e.teamId, e.teamMemberRole);
  const matched = entries.length > 0;
  return {
    matched,
    role: !matched ? null : entries.some((e) => e.type === "organizationOwner") ? "owner" : "member",
    decidesOwners: mapping.scimGroupMappings.some((e) => e.type === "organizationOwner"),
    teams: [...teams].map(([teamId, role]) => ({ teamId, role })),
  };
}

/**
 * The role a person ends up with in an organization after signing in with `groups`:
 * `current` is their role now (undefined when not a member), `lastOwner` whether they are its only owner.
 * Unmatched people keep what they have; the mapping raises and, when it names owner groups, lowers;
 * it never lowers the last owner.
 */
export function nextRole(standing: MappedStanding, current: "owner" | "member" | undefined, lastOwner: boolean): "owner" | "member" | undefined {
  if (!standing.matched) return current;
  if (standing.role === "owner") return "owner";
  if (current === "owner" && (!standing.decidesOwners || lastOwner)) return "owner";
  return "member";
}
