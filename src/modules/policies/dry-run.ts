import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { invalid, notFound } from "../../platform/errors.js";
import type { Gate } from "../../policies/rules/gates.js";
import { accessInput } from "../access/policy-gates.js";
import { accessRepository, type AccessRecord } from "../access/repository.js";
import { stageOf } from "../access/lifecycle.js";
import { resourceRepository, type ResourceKind } from "../catalog/resource-repository.js";
import type { DocumentService } from "../catalog/document-service.js";
import type { DocumentLimits } from "../catalog/document-limits.js";
import type { PolicyEnforcement } from "./enforcement.js";
import { evaluateDraft } from "./draft-evaluate.js";
import { ruleViolations } from "./service.js";
import type { DraftEvaluation, DraftEvaluationRequest, Policy, Rule } from "./shapes.js";

/** Most documents of a kind, and most open accesses, one dry run reads: past it, `truncated`. */
export const DRY_RUN_MAX_ROWS = 10_000;
/** Most findings an answer lists; `counts` covers them all. */
export const DRY_RUN_MAX_FINDINGS = 500;
/** Inputs sent to the rule thread at once: each batch has the rule time limit to itself. */
const BATCH = 250;
const PAGE = 500;

export interface Finding {
  gate: Gate;
  kind: "datacontract" | "dataproduct" | "access";
  id: string;
  /** deny, warn or hold (require-approvals). */
  outcome: "deny" | "warn" | "hold";
  read: Record<string, unknown>;
  error?: string;
}

export interface DryRun {
  policyId: string;
  rule: Rule;
  evaluated: { datacontracts: number; dataproducts: number; accesses: number };
  counts: { deny: number; warn: number; hold: number };
  findings: Finding[];
  /** More documents or accesses existed than one dry run reads. */
  truncated: boolean;
}

const OUTCOME = { deny: "deny", warn: "warn", "require-approvals": "hold" } as const;

/**
 * Runs one rule, stored or a draft, over the organization's current data contracts, data products
 * and open accesses, and tells what it would deny, warn about or hold. It reads and changes
 * nothing else: no event, no write (docs/policies.md, "Trying a rule").
 */
export class PolicyDryRun {
  constructor(
    private readonly database: Database,
    private readonly policies: DocumentService<Policy>,
    private readonly enforcement: PolicyEnforcement,
    private readonly clock: Clock,
    private readonly limits: DocumentLimits,
  ) {}

  /** What each Accepted policy at a document gate says about a draft document; nothing is written. */
  draft(p: Principal, body: DraftEvaluationRequest): Promise<DraftEvaluation> {
    return evaluateDraft(this.database, this.enforcement, this.clock, this.limits, p, body);
  }

  async run(p: Principal, id: string, draft: Rule | undefined): Promise<DryRun> {
    const stored = await this.policies.find(p.organizationId, id);
    if (draft === undefined && stored === undefined) throw notFound("Policy", id);
    const rule = draft ?? stored?.rule;
    if (rule === undefined) throw invalid(`Policy '${id}' has no rule to try; send one as {"rule": …}.`, [{ field: "rule", message: "is required when the policy has none" }]);
    if (draft !== undefined) {
      const violations = ruleViolations(draft);
      if (violations.length > 0) throw invalid("The rule is not valid.", violations);
    }
    const policy = { id, name: stored?.name ?? id, gates: rule.gates, rule };
    const now = this.clock.now().toISOString();
    const ex = this.database.db;
    const result: DryRun = { policyId: id, rule, evaluated: { datacontracts: 0, dataproducts: 0, accesses: 0 }, counts: { deny: 0, warn: 0, hold: 0 }, findings: [], truncated: false };
    const outcome = OUTCOME[rule.effect];

    const judge = async (gate: Gate, kind: Finding["kind"], items: Array<{ id: string; input: Record<string, unknown> }>) => {
      for (let i = 0; i < items.length; i += BATCH) {
        const batch = items.slice(i, i + BATCH);
        const results = await this.enforcement.run([policy], batch.map((b) => b.input));
        results.forEach(([r], j) => {
          if (!r?.matched) return;
          result.counts[outcome]++;
          if (result.findings.length < DRY_RUN_MAX_FINDINGS) result.findings.push({ gate, kind, id: batch[j]!.id, outcome, read: r.read, ...(r.error ? { error: r.error } : {}) });
        });
      }
    };

    for (const [gate, kind, variable, counted] of [["contract.publish", "datacontract", "contract", "datacontracts"], ["product.publish", "dataproduct", "product", "dataproducts"]] as const) {
      if (!rule.gates.includes(gate)) continue;
      const items: Array<{ id: string; input: Record<string, unknown> }> = [];
      for (let offset = 0; ; offset += PAGE) {
        const { rows } = await resourceRepository.list<Record<string, unknown>>(ex, p.organizationId, kind as ResourceKind, { offset, limit: PAGE }, Number.POSITIVE_INFINITY, this.database.dialect);
        for (const row of rows) items.push({ id: row.id, input: { [variable]: row.doc, previous: row.doc, now } });
        if (rows.length < PAGE || items.length > DRY_RUN_MAX_ROWS) break;
      }
      if (items.length > DRY_RUN_MAX_ROWS) result.truncated = true;
      items.length = Math.min(items.length, DRY_RUN_MAX_ROWS);
      result.evaluated[counted] = items.length;
      await judge(gate, kind, items);
    }

    const accessGates = rule.gates.filter((g): g is Gate => g.startsWith("access."));
    if (accessGates.length > 0) {
      const open: AccessRecord[] = [];
      for (const status of ["requested", "approved"] as const) {
        for (let offset = 0; open.length <= DRY_RUN_MAX_ROWS; offset += PAGE) {
          const { records } = await accessRepository.list(ex, p.organizationId, { status, offset, limit: PAGE });
          open.push(...records.filter((r) => stageOf(r, now) !== "closed" && stageOf(r, now) !== "ended"));
          if (records.length < PAGE) break;
        }
      }
      if (open.length > DRY_RUN_MAX_ROWS) result.truncated = true;
      const cache = new Map<string, Promise<unknown>>();
      const items = [];
      for (const record of open.slice(0, DRY_RUN_MAX_ROWS)) items.push({ id: record.id, input: await accessInput(ex, p, record, now, cache) });
      result.evaluated.accesses = items.length;
      // Judged once per gate of the rule: the findings name the gate.
      for (const gate of accessGates) await judge(gate, "access", items);
    }
    return result;
  }
}
