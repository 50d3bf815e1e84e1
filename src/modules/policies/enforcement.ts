import type { Executor } from "../../platform/database/index.js";
import { ProblemWithMembers } from "../../platform/errors.js";
import type { Gate } from "../../policies/rules/gates.js";
import { RuleLimitExceeded, type RuleRunner } from "../../policies/rules/runner.js";
import { judge, refusalDetail, type GatedPolicy, type Judgement } from "../../policies/rules/verdicts.js";
import { policyRepository } from "./repository.js";
import type { Policy } from "./shapes.js";

/**
 * Applies the organization's Accepted policies at a gate (docs/policies.md): reads them inside
 * the change's transaction, runs their rules on the rule thread, and judges the results.
 */
export class PolicyEnforcement {
  constructor(readonly runner: RuleRunner) {}

  /** The verdicts at `gate` over one input; no policies with a rule there: nothing to run. */
  async judge(ex: Executor, organizationId: string, gate: Gate, input: Record<string, unknown>): Promise<Judgement> {
    const policies = gatedAt(await policyRepository.accepted(ex, organizationId), gate);
    // The judgement keeps the values read of the matched rules only.
    const [results] = await this.run(policies, [input], undefined, true);
    return judge(gate, policies, results ?? []);
  }

  /**
   * Runs the rules of `policies` over several inputs (a dry run), answering the results by input;
   * only the first `reads` inputs a rule matches get the values it read (`RuleTask`).
   */
  async run(policies: readonly EnforcedPolicy[], inputs: Array<Record<string, unknown>>, reads?: number, matchedReadsOnly = false) {
    if (policies.length === 0) return inputs.map(() => []);
    try {
      return await this.runner.run({ rules: policies.map((p) => ({ id: p.id, condition: p.rule.condition, gates: p.gates })), inputs, ...(reads !== undefined ? { reads } : {}), ...(matchedReadsOnly ? { matchedReadsOnly } : {}) });
    } catch (error) {
      if (!(error instanceof RuleLimitExceeded)) throw error;
      const names = policies.map((p) => `'${p.name}' (${p.id})`).join(", ");
      throw new RuleLimitExceeded(`${error.detail} The rules evaluated were those of ${names}.`);
    }
  }
}

export type EnforcedPolicy = GatedPolicy & { gates: Gate[] };

/** The policies with a rule at `gate`. */
export function gatedAt(policies: readonly Policy[], gate: Gate): EnforcedPolicy[] {
  return policies.flatMap((p) => (p.rule && p.rule.gates.includes(gate) ? [{ id: p.id, name: p.name, gates: p.rule.gates, rule: p.rule }] : []));
}

/** The problem that refuses a change: each deciding policy, its rule, and the values it read. */
export function refusal(status: 409 | 422, what: string, judgement: Judgement): ProblemWithMembers {
  return new ProblemWithMembers(status, refusalDetail(what, judgement.denied), { policies: judgement.denied, ...(judgement.warned.length > 0 ? { warnings: judgement.warned } : {}) });
}
