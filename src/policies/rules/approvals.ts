import type { PrincipalScope } from "../../platform/auth.js";

/**
 * Approvals by several people (docs/policies.md, "Approvals by several people"), as pure
 * functions: who is eligible for a requirement, how many approvals each requirement has in the
 * order they were given, and why a principal may not give one.
 */

export interface Eligible {
  providerTeam?: boolean;
  teams?: string[];
  organization?: boolean;
  /** Only people with one of these roles in the team they approve for. */
  teamRoles?: string[];
}

/** Distinct approvals an access needs from eligible people. */
export interface ApprovalRequirement {
  /** The policy, or `contract-role:<role>:<level>` for an ODCS contract's approvers. */
  source: string;
  name: string;
  count: number;
  eligible: Eligible;
  /** The requirement that must be met first: approvals given before it is met do not count here. */
  after?: string;
}

/** Who acts, as approval rules see them. */
export interface Approver {
  principal: string;
  scope: PrincipalScope;
  teamIds: readonly string[];
  /** A person's role in each of their teams; absent for keys. */
  teamRoles?: Readonly<Record<string, string>>;
}

/** The teams a requirement counts approvals for: the provider team (unless named teams replace it) and the named teams. */
function teamsOf(requirement: ApprovalRequirement, providerTeamId: string | null): string[] {
  const e = requirement.eligible;
  const providerTeam = e.providerTeam ?? e.teams === undefined;
  return [...(providerTeam && providerTeamId !== null ? [providerTeamId] : []), ...(e.teams ?? [])];
}

const holdsRole = (who: Approver, teamId: string, roles: readonly string[]): boolean => {
  const role = who.teamRoles?.[teamId];
  return role !== undefined && roles.some((r) => r.toLowerCase() === role.toLowerCase());
};

/** Whether `who` may give an approval `requirement` counts, for an access provided by `providerTeamId`. */
export function eligibleFor(requirement: ApprovalRequirement, who: Approver, providerTeamId: string | null): boolean {
  const e = requirement.eligible;
  if (who.scope === "organization") return e.organization !== false;
  if (who.scope !== "team") return false;
  return teamsOf(requirement, providerTeamId).some((t) => who.teamIds.includes(t) && (e.teamRoles === undefined || holdsRole(who, t, e.teamRoles)));
}

export interface ApprovalState {
  met: boolean;
  given: number;
  needed: number;
  /** Distinct approvals counted for each requirement, in the requirements' order. */
  counts: number[];
  /** Whether each requirement is still waiting for the one it comes after. */
  waiting: boolean[];
}

/**
 * How many distinct eligible approvals each requirement has, and whether all are met. `approvals`
 * are in the order they were given: one counts for a requirement only if the requirement it comes
 * after was met before it (so the approval that completes a first level is not also a second).
 */
export function approvalState(requirements: readonly ApprovalRequirement[], approvals: readonly Approver[], providerTeamId: string | null): ApprovalState {
  const counted = requirements.map(() => new Set<string>());
  const index = new Map(requirements.map((r, i) => [r.source, i]));
  const isMet = (i: number) => counted[i]!.size >= requirements[i]!.count;
  const isOpen = (r: ApprovalRequirement) => r.after === undefined || !index.has(r.after) || isMet(index.get(r.after)!);
  for (const approval of approvals) {
    const open = requirements.map(isOpen);
    requirements.forEach((r, i) => {
      if (open[i] && eligibleFor(r, approval, providerTeamId)) counted[i]!.add(approval.principal);
    });
  }
  const counts = counted.map((c) => c.size);
  return {
    met: requirements.every((_, i) => isMet(i)),
    given: requirements.reduce((sum, r, i) => sum + Math.min(counts[i]!, r.count), 0),
    needed: requirements.reduce((sum, r) => sum + r.count, 0),
    counts,
    waiting: requirements.map((r) => !isOpen(r)),
  };
}

/** Why `who` may give none of the approvals `requirements` ask for, one reason per requirement. */
export function ineligibility(requirements: readonly ApprovalRequirement[], who: Approver, providerTeamId: string | null): string {
  const reasons = requirements.map((r) => {
    const named = `'${r.name}' (${r.source})`;
    const e = r.eligible;
    if (who.scope === "organization") return `${named} does not count organization-scoped principals`;
    const teams = teamsOf(r, providerTeamId);
    const listed = teams.map((t) => `'${t}'`).join(", ");
    if (who.scope !== "team") return `${named} counts principals acting for ${teams.length > 0 ? `the team ${listed}` : "no team"}, and this principal cannot approve (scope ${who.scope})`;
    const acted = teams.filter((t) => who.teamIds.includes(t));
    if (acted.length === 0) return `${named} counts principals acting for ${teams.length > 0 ? `the team ${listed}` : "no team"}, and this principal acts for none of them`;
    const roles = (e.teamRoles ?? []).map((role) => `'${role}'`).join(", ");
    const held = acted.map((t) => (who.teamRoles?.[t] !== undefined ? `in '${t}' as '${who.teamRoles[t]}'` : `for '${t}' with no team role (a team key)`)).join(", ");
    return `${named} counts only the team roles ${roles}, and this principal acts ${held}`;
  });
  return `This access needs approvals from the people its policies name, and this principal is not one of them: ${reasons.join("; ")} (docs/policies.md).`;
}

/** The approvals an ODCS contract asks for the roles an access requests: one per level named, the second after the first. */
export function contractRoleRequirements(contract: Record<string, unknown>, requestedRoles: readonly string[]): ApprovalRequirement[] {
  const roles = Array.isArray(contract.roles) ? (contract.roles as unknown[]) : [];
  const requirements: ApprovalRequirement[] = [];
  for (const entry of roles) {
    if (entry === null || typeof entry !== "object") continue;
    const role = (entry as Record<string, unknown>).role;
    if (typeof role !== "string" || !requestedRoles.includes(role)) continue;
    let first: string | undefined;
    for (const [level, member] of [["first", "firstLevelApprovers"], ["second", "secondLevelApprovers"]] as const) {
      const approvers = (entry as Record<string, unknown>)[member];
      // ODCS gives "the name(s)" as one text: several are separated by commas. Each names a team by its id.
      const teams = (Array.isArray(approvers) ? approvers : [approvers])
        .filter((a): a is string => typeof a === "string")
        .flatMap((a) => a.split(","))
        .map((a) => a.trim())
        .filter((a) => a !== "");
      if (teams.length === 0) continue;
      const source = `contract-role:${role}:${level}`;
      requirements.push({ source, name: `${member} of the contract's role '${role}'`, count: 1, eligible: { teams, providerTeam: false, organization: false }, ...(first ? { after: first } : {}) });
      first ??= source;
    }
  }
  return requirements;
}
