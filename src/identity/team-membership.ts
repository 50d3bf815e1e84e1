import type { Principal } from "../platform/auth.js";
import type { Database } from "../platform/database/index.js";
import { Problem } from "../platform/errors.js";
import { normalizeEmail } from "../modules/people/addresses.js";
import type { DocumentService } from "../modules/shared/document-service.js";
import { etagOfJson } from "../modules/shared/document-service.js";
import { resourceRepository } from "../modules/shared/resource-repository.js";
import type { Team } from "../modules/teams/shapes.js";
import { mappedStanding, type GroupMapping } from "./mapping.js";
import { identityRepository } from "./repository.js";

/**
 * Team members the group mapping adds (docs/identity.md, "Teams from groups"). A member entry the
 * mapping wrote carries `provisionedBy: "group-mapping"`; only such entries are ever changed or
 * removed by it, so a member someone listed by hand stays as they were listed.
 */
export const MAPPED_MARKER = "group-mapping";

export type TeamMember = Record<string, unknown> & { emailAddress?: unknown; role?: unknown };

function isMapped(member: TeamMember): boolean {
  return member.provisionedBy === MAPPED_MARKER;
}

/**
 * The team's members after the mapping gave `email` the role `role` in it (undefined: no mapped
 * group puts them there). Answers undefined when nothing changes.
 */
export function membersAfter(members: readonly TeamMember[], email: string, role: string | undefined): TeamMember[] | undefined {
  const address = normalizeEmail(email);
  const index = members.findIndex((m) => typeof m?.emailAddress === "string" && normalizeEmail(m.emailAddress) === address);
  const found = index < 0 ? undefined : members[index]!;
  if (role === undefined) {
    if (found === undefined || !isMapped(found)) return undefined;
    return members.filter((_, i) => i !== index);
  }
  if (found === undefined) return [...members, { emailAddress: email, role, provisionedBy: MAPPED_MARKER }];
  if (!isMapped(found) || found.role === role) return undefined;
  return members.map((m, i) => (i === index ? { ...m, role } : m));
}

/** The teams a mapping names, each with the role the person's groups give them there (undefined: none). */
export function mappedTeamRoles(mapping: GroupMapping, groups: readonly string[] | null): Map<string, string | undefined> {
  const wanted = new Map((groups === null ? [] : mappedStanding(mapping, groups).teams).map((t) => [t.teamId, t.role]));
  const result = new Map<string, string | undefined>();
  for (const e of mapping.scimGroupMappings) if (e.type === "teamMemberRole" && e.teamId !== undefined) result.set(e.teamId, wanted.get(e.teamId));
  return result;
}

/** Attempts at one team's write when another change to it comes in between. */
const ATTEMPTS = 3;

/**
 * Applies the mapping to the teams of one person: each change is an ordinary team write (its
 * event, its new ETag), conditioned on the version read, so a concurrent edit is never lost.
 */
export class MappedTeams {
  constructor(
    private readonly database: Database,
    private readonly teams: DocumentService<Team>,
  ) {}

  /** `groups`: the person's groups now; null when they are no member of the organization any more. */
  async apply(actor: Principal, email: string, groups: readonly string[] | null): Promise<void> {
    const { mapping } = await identityRepository.settings(this.database.db, actor.organizationId);
    for (const [teamId, role] of mappedTeamRoles(mapping, groups)) await this.applyTo(actor, teamId, email, role);
  }

  private async applyTo(actor: Principal, teamId: string, email: string, role: string | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const stored = await resourceRepository.get<Team>(this.database.db, actor.organizationId, "team", teamId);
      // A team the mapping names but nobody made yet is not made by it.
      if (!stored) return;
      const members = Array.isArray(stored.doc.members) ? (stored.doc.members as TeamMember[]) : [];
      const next = membersAfter(members, email, role);
      if (next === undefined) return;
      try {
        await this.teams.put(actor, teamId, { ...stored.doc, members: next }, { ifMatch: etagOfJson(stored.json) });
        return;
      } catch (error) {
        if (attempt >= ATTEMPTS || !(error instanceof Problem && error.status === 412)) throw error;
      }
    }
  }
}
