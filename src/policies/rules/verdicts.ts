import type { RecordedVerdict } from "../../events/kinds.js";
import type { RuleResult } from "./evaluate.js";
import type { ApprovalRequirement, Eligible } from "./approvals.js";
import type { Effect, Gate } from "./gates.js";

/**
 * What the policies at a gate decide together (docs/policies.md), as a pure function of the
 * policies and their rules' results: every matched rule counts; one deny refuses; warnings and
 * approval requirements are kept with the change.
 */

export interface GatedPolicy {
  id: string;
  name: string;
  rule: { condition: string; effect: Effect; message?: string; approvals?: { count: number; eligible?: Eligible } };
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
