import type { PrincipalScope } from "../../platform/auth.js";
import type { RecordedVerdict } from "../../events/kinds.js";
import type { RuleResult } from "./evaluate.js";
import type { Effect, Gate } from "./gates.js";

/**
 * What the policies at a gate decide together (docs/policies.md), as a pure function of the
 * policies and their rules' results: every matched rule counts; one deny refuses; warnings and
 * approval requirements are kept with the change.
 */

export interface Eligible {
  providerTeam?: boolean;
  teams?: string[];
  organization?: boolean;
}

export interface GatedPolicy {
  id: string;
  name: string;
  rule: { condition: string; effect: Effect; message?: string; approvals?: { count: number; eligible?: Eligible } };
}

/** Distinct approvals an access needs from eligible people. */
export interface ApprovalRequirement {
  /** The policy, or `contract-role:<role>:<level>` for an ODCS contract's approvers. */
  source: string;
  name: string;
  count: number;
  eligible: Eligible;
}

export interface Judgement {
  denied: RecordedVerdict[];
  warned: RecordedVerdict[];
  held: RecordedVerdict[];
  requirements: ApprovalRequirement[];
  /** Every verdict that denied, warned or held, for the change's event and history. */
  recorded: RecordedVerdict[];
}

export function judge(gate: Gate, policies: readonly GatedPolicy[], results: readonly RuleResult[]): Judgement {
  const byId = new Map(results.map((r) => [r.id, r]));
  const judgement: Judgement = { denied: [], warned: [], held: [], requirements: [], recorded: [] };
  for (const p of policies) {
    const result = byId.get(p.id);
    if (!result?.matched) continue;
    const verdict: RecordedVerdict = {
      policyId: p.id,
      name: p.name,
      effect: p.rule.effect,
      gate,
      rule: p.rule.condition,
      ...(p.rule.message !== undefined ? { message: p.rule.message } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
      read: result.read,
      ...(p.rule.approvals ? { count: p.rule.approvals.count } : {}),
    };
    judgement.recorded.push(verdict);
    if (p.rule.effect === "deny") judgement.denied.push(verdict);
    else if (p.rule.effect === "warn") judgement.warned.push(verdict);
    else {
      judgement.held.push(verdict);
      judgement.requirements.push({ source: p.id, name: p.name, count: p.rule.approvals?.count ?? 1, eligible: p.rule.approvals?.eligible ?? {} });
    }
  }
  return judgement;
}

/** The refusal's text: each deciding policy with its reason. */
export function refusalDetail(what: string, denied: readonly RecordedVerdict[]): string {
  const reasons = denied.map((v) => `'${v.name}' (${v.policyId})${v.message ? `: ${v.message}` : ""}${v.error ? ` [${v.error}]` : ""}`);
  return `${what} is refused by ${denied.length === 1 ? "the policy" : "the policies"} ${reasons.join("; ")}. Nothing was changed.`;
}

/** Who acts, as approval rules see them. */
export interface Approver {
  principal: string;
  scope: PrincipalScope;
  teamIds: readonly string[];
}

/** Whether `who` may give an approval `requirement` counts, for an access provided by `providerTeamId`. */
export function eligibleFor(requirement: ApprovalRequirement, who: Approver, providerTeamId: string | null): boolean {
  const e = requirement.eligible;
  if (who.scope === "organization") return e.organization !== false;
  if (who.scope !== "team") return false;
  const providerTeam = e.providerTeam ?? e.teams === undefined;
  if (providerTeam && providerTeamId !== null && who.teamIds.includes(providerTeamId)) return true;
  return (e.teams ?? []).some((t) => who.teamIds.includes(t));
}

/** How many distinct eligible approvals each requirement has, and whether all are met. */
export function approvalState(
  requirements: readonly ApprovalRequirement[],
  approvals: readonly Approver[],
  providerTeamId: string | null,
): { met: boolean; given: number; needed: number } {
  let given = 0;
  let needed = 0;
  let met = true;
  for (const r of requirements) {
    const distinct = new Set(approvals.filter((a) => eligibleFor(r, a, providerTeamId)).map((a) => a.principal));
    given += Math.min(distinct.size, r.count);
    needed += r.count;
    if (distinct.size < r.count) met = false;
  }
  return { met, given, needed };
}

/** The approvals an ODCS contract asks for the roles an access requests: one per level named. */
export function contractRoleRequirements(contract: Record<string, unknown>, requestedRoles: readonly string[]): ApprovalRequirement[] {
  const roles = Array.isArray(contract.roles) ? (contract.roles as unknown[]) : [];
  const requirements: ApprovalRequirement[] = [];
  for (const entry of roles) {
    if (entry === null || typeof entry !== "object") continue;
    const role = (entry as Record<string, unknown>).role;
    if (typeof role !== "string" || !requestedRoles.includes(role)) continue;
    for (const [level, member] of [["first", "firstLevelApprovers"], ["second", "secondLevelApprovers"]] as const) {
      const approvers = (entry as Record<string, unknown>)[member];
      // ODCS gives "the name(s)" as one text: several are separated by commas. Each names a team by its id.
      const teams = (Array.isArray(approvers) ? approvers : [approvers])
        .filter((a): a is string => typeof a === "string")
        .flatMap((a) => a.split(","))
        .map((a) => a.trim())
        .filter((a) => a !== "");
      if (teams.length === 0) continue;
      requirements.push({ source: `contract-role:${role}:${level}`, name: `${member} of the contract's role '${role}'`, count: 1, eligible: { teams, providerTeam: false, organization: false } });
    }
  }
  return requirements;
}
