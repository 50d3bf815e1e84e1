import type { Principal } from "../platform/auth.js";
import type { Database, Executor } from "../platform/database/index.js";
import type { Emit, EventLog } from "../events/log.js";
import { Problem } from "../platform/errors.js";
import { normalizeEmail } from "../modules/people/addresses.js";
import type { DocumentService } from "../modules/catalog/document-service.js";
import { resourceRepository } from "../modules/catalog/resource-repository.js";
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

/** Where a team the mapping could not change is reported (the server's log). */
export interface MappingLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** Lists a person in the teams the mapping names, inside the change that caused it. */
export type ApplyTeams = (email: string, groups: readonly string[] | null) => Promise<void>;

/**
 * Applies the mapping to the teams of one person, inside the transaction of the change that
 * causes it (a SCIM change, a sign-in), so the membership and the team entries commit together
 * or not at all. Each team's change is an ordinary team write (its event, its new ETag), made on
 * the team's row locked for the rest of the transaction, so a concurrent edit is never lost.
 * A team whose stored document cannot be read as a team is left as it is and reported to the log:
 * the change itself still goes through (docs/identity.md, "Teams from groups").
 */
export class MappedTeams {
  private log: MappingLog | undefined;

  constructor(
    private readonly database: Database,
    private readonly events: EventLog,
    private readonly teams: DocumentService<Team>,
  ) {}

  /** Reports the teams left unchanged to `log` from now on. */
  setLog(log: MappingLog): void {
    this.log = log;
  }

  /** Runs `work` as one change of the actor's organization, with its events; `apply` writes the mapped teams within it. */
  change<T>(actor: Principal, work: (trx: Executor, apply: ApplyTeams) => Promise<T>): Promise<T> {
    return this.events.transaction(actor, (trx, emit) => work(trx, (email, groups) => this.applyIn(trx, emit, actor, email, groups)));
  }

  /** `groups`: the person's groups now; null when they are no member of the organization any more. */
  async applyIn(trx: Executor, emit: Emit, actor: Principal, email: string, groups: readonly string[] | null): Promise<void> {
    const { mapping } = await identityRepository.settings(trx, actor.organizationId);
    for (const [teamId, role] of mappedTeamRoles(mapping, groups)) {
      const reason = await this.applyTo(trx, emit, actor, teamId, email, role);
      if (reason !== undefined) {
        this.log?.warn({ organizationId: actor.organizationId, teamId, reason }, "the group mapping left a team unchanged: its stored document cannot be written as a team");
      }
    }
  }

  /** Answers why the team was left as it is, when it could not be changed; undefined otherwise. */
  private async applyTo(trx: Executor, emit: Emit, actor: Principal, teamId: string, email: string, role: string | undefined): Promise<string | undefined> {
    let doc: unknown;
    try {
      const stored = await resourceRepository.get<Team>(trx, actor.organizationId, "team", teamId, { lock: this.database.dialect });
      // A team the mapping names but nobody made yet is not made by it.
      if (!stored) return undefined;
      doc = stored.doc;
    } catch (error) {
      if (error instanceof SyntaxError) return "its stored text is not JSON";
      throw error;
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return "it is not an object";
    const team = doc as Team;
    if (team.members !== undefined && !Array.isArray(team.members)) return "its members are not a list";
    const next = membersAfter((team.members ?? []) as TeamMember[], email, role);
    if (next === undefined) return undefined;
    try {
      // Refusals come before anything is written, so the transaction goes on without this team.
      await this.teams.putWithin(trx, emit, actor, teamId, { ...team, members: next } as Team);
      return undefined;
    } catch (error) {
      if (error instanceof Problem && error.status < 500) return error.detail;
      throw error;
    }
  }
}
