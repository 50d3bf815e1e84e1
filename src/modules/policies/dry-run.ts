import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { invalid, notFound } from "../../platform/errors.js";
import { compileRule } from "../../policies/rules/check.js";
import { variablesOf, type Gate } from "../../policies/rules/gates.js";
import { accessInputs } from "../access/policy-gates.js";
import { accessRepository } from "../access/repository.js";
import { stageOf } from "../access/lifecycle.js";
import { resourceRepository, type ResourceKind, type StoredResource } from "../catalog/resource-repository.js";
import type { DocumentService } from "../catalog/document-service.js";
import type { DocumentLimits } from "../catalog/document-limits.js";
import type { PolicyEnforcement } from "./enforcement.js";
import { evaluateDraft } from "./draft-evaluate.js";
import { ruleViolations } from "./service.js";
import type { RuleResult } from "../../policies/rules/evaluate.js";
import type { DraftEvaluation, DraftEvaluationRequest, Policy, Rule } from "./shapes.js";

/** Most documents of a kind, and most open accesses, one dry run reads: past it, `truncated`. */
export const DRY_RUN_MAX_ROWS = 10_000;
/** Most findings an answer lists; `counts` covers them all. */
export const DRY_RUN_MAX_FINDINGS = 500;
/** Inputs sent to the rule thread at once: each batch has the rule time limit to itself. */
const BATCH = 250;
const PAGE = 500;
/**
 * Batches handed to the rule thread and not yet counted: the thread judges one while the next
 * page is read. The next is sent only once it is counted, so no batch runs after one that failed
 * (a rule stopped by its time limit) and each batch's values read are asked for exactly.
 */
const IN_FLIGHT = 1;
const CLOSED = new Set(["closed", "ended"]);

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
    const variables = variablesRead(rule);
    // Matched accesses waiting to be listed under each access gate (below).
    const found: Judged[] = [];
    // Only the inputs that may still be listed need the values the rule read.
    const listable = () => DRY_RUN_MAX_FINDINGS - result.findings.length - found.length;
    const judging = new Judging((inputs) => this.enforcement.run([policy], inputs, listable()));

    for (const [gate, kind, variable, counted] of [["contract.publish", "datacontract", "contract", "datacontracts"], ["product.publish", "dataproduct", "product", "dataproducts"]] as const) {
      if (!rule.gates.includes(gate)) continue;
      const found = (item: Judged) => {
        result.counts[outcome]++;
        if (result.findings.length < DRY_RUN_MAX_FINDINGS) result.findings.push({ gate, kind, id: item.id, outcome, read: item.read, ...(item.error ? { error: item.error } : {}) });
      };
      let seen = 0;
      for (let offset = 0; ; offset += PAGE) {
        const { rows } = await resourceRepository.list<Record<string, unknown>>(ex, p.organizationId, kind as ResourceKind, { offset, limit: PAGE }, Number.POSITIVE_INFINITY, this.database.dialect);
        for (const row of rows.slice(0, Math.max(0, DRY_RUN_MAX_ROWS - seen))) await judging.add(row.id, documentInput(variables, variable, row, now), found);
        seen += rows.length;
        if (rows.length < PAGE || seen > DRY_RUN_MAX_ROWS) break;
      }
      await judging.flush();
      if (seen > DRY_RUN_MAX_ROWS) result.truncated = true;
      result.evaluated[counted] = Math.min(seen, DRY_RUN_MAX_ROWS);
    }

    const accessGates = rule.gates.filter((g): g is Gate => g.startsWith("access."));
    if (accessGates.length > 0) {
      // The rule and an access's input are the same at each access gate: each access is judged
      // once, and what it finds is listed under every gate of the rule, gate by gate.
      const matched = (item: Judged) => {
        result.counts[outcome] += accessGates.length;
        if (listable() > 0) found.push(item);
      };
      const cache = new Map<string, Record<string, unknown> | undefined>();
      let seen = 0;
      for (const status of ["requested", "approved"] as const) {
        for (let offset = 0; seen <= DRY_RUN_MAX_ROWS; offset += PAGE) {
          const { records } = await accessRepository.list(ex, p.organizationId, { status, offset, limit: PAGE });
          const open = records.filter((r) => !CLOSED.has(stageOf(r, now)));
          const judged = open.slice(0, Math.max(0, DRY_RUN_MAX_ROWS - seen));
          seen += open.length;
          const inputs = await accessInputs(ex, this.database.dialect, p, judged, now, variables, cache);
          for (let i = 0; i < judged.length; i++) await judging.add(judged[i]!.id, inputs[i]!, matched);
          if (records.length < PAGE) break;
        }
      }
      await judging.flush();
      if (seen > DRY_RUN_MAX_ROWS) result.truncated = true;
      result.evaluated.accesses = Math.min(seen, DRY_RUN_MAX_ROWS);
      for (const gate of accessGates) {
        for (const item of found) {
          if (result.findings.length >= DRY_RUN_MAX_FINDINGS) break;
          result.findings.push({ gate, kind: "access", id: item.id, outcome, read: item.read, ...(item.error ? { error: item.error } : {}) });
        }
      }
    }
    return result;
  }
}

/**
 * The input variables the rule reads: only those are built and sent to the rule thread, which
 * answers the same without the others. A rule that does not compile reads none: each input then
 * finds the same error.
 */
function variablesRead(rule: Rule): Set<string> {
  const compiled = compileRule(rule.condition, variablesOf(rule.gates));
  return new Set(compiled.ok ? compiled.reads.map((path) => path.split(".")[0]!) : []);
}

/** A document gate's input, as the gate gives it for a document stored unchanged; only `variables`. */
function documentInput(variables: ReadonlySet<string>, variable: "contract" | "product", row: StoredResource<Record<string, unknown>>, now: string): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (variables.has(variable)) input[variable] = row.doc;
  if (variables.has("previous")) input.previous = row.doc;
  if (variables.has("now")) input.now = now;
  return input;
}

/** One matched input: what its finding tells. */
interface Judged {
  id: string;
  read: Record<string, unknown>;
  error?: string;
}

/**
 * The inputs of a dry run, sent to the rule thread in batches of BATCH while the next ones are
 * read and built: at most IN_FLIGHT batches wait for their results, which are counted in the
 * order the inputs were added.
 */
class Judging {
  readonly #pending: Array<{ ids: string[]; found: Array<(item: Judged) => void>; results: Promise<Array<Array<RuleResult | undefined>>> }> = [];
  #ids: string[] = [];
  #inputs: Array<Record<string, unknown>> = [];
  #found: Array<(item: Judged) => void> = [];

  constructor(private readonly run: (inputs: Array<Record<string, unknown>>) => Promise<Array<Array<RuleResult | undefined>>>) {}

  /** Adds one input; `found` is called with it if the rule matches. */
  async add(id: string, input: Record<string, unknown>, found: (item: Judged) => void): Promise<void> {
    this.#ids.push(id);
    this.#inputs.push(input);
    this.#found.push(found);
    if (this.#inputs.length >= BATCH) await this.#send();
  }

  /** Sends what is left and counts every result. */
  async flush(): Promise<void> {
    if (this.#inputs.length > 0) await this.#send();
    while (this.#pending.length > 0) await this.#count();
  }

  async #send(): Promise<void> {
    while (this.#pending.length >= IN_FLIGHT) await this.#count();
    const results = this.run(this.#inputs);
    // A failure is thrown where its batch is counted, or by nobody if reading fails first.
    results.catch(() => undefined);
    this.#pending.push({ ids: this.#ids, found: this.#found, results });
    this.#ids = [];
    this.#inputs = [];
    this.#found = [];
  }

  async #count(): Promise<void> {
    const batch = this.#pending.shift()!;
    (await batch.results).forEach(([r], j) => {
      if (r?.matched) batch.found[j]!({ id: batch.ids[j]!, read: r.read, ...(r.error ? { error: r.error } : {}) });
    });
  }
}
