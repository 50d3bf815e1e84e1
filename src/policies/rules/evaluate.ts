import { celEnv, CelScalar, isCelError, mapType, plan, type CelType } from "@bufbuild/cel";
import { compileRule } from "./check.js";
import { costPlanOf, type CostPlan, type ThreadReason } from "./placement.js";
import { variablesOf, type Gate } from "./gates.js";

/**
 * Evaluating compiled rules over one input (docs/policies.md). Pure and deterministic: a rule
 * sees only `input`, which holds its gate's variables; CEL has no I/O, and the clock is `now` in
 * the input. The cost limits (time, memory) are the worker's that runs this (`runner.ts`).
 */

export interface RuleToRun {
  /** The policy's id: results come back under it. */
  id: string;
  condition: string;
  gates: readonly Gate[];
}

export interface RuleResult {
  id: string;
  /** true: the condition held, so the policy's effect applies. */
  matched: boolean;
  /** Why the rule could not be decided (it then counts as matched: a rule that fails, fails closed). */
  error?: string;
  /** The input values the rule read, by path; null when absent. */
  read: Record<string, unknown>;
}

/** A compiled rule; planned for evaluation the first time it runs on a thread. */
type Program =
  | { run?: (vars: Record<string, unknown>) => unknown; plan: () => (vars: Record<string, unknown>) => unknown; reads: string[]; cost: CostPlan | { thread: ThreadReason } }
  | { error: string; reads: string[]; cost: CostPlan };

/** Plans by rule text and gates: a rule is compiled once per worker. Bounded: rules are few. */
const programs = new Map<string, Program>();
const MAX_PROGRAMS = 2000;

const MAP: CelType = mapType(CelScalar.STRING, CelScalar.DYN);

const keyOf = (rule: RuleToRun) => `${rule.gates.join(",")}\u0000${rule.condition}`;

function programOf(rule: RuleToRun): Program {
  const key = keyOf(rule);
  const cached = programs.get(key);
  if (cached) return cached;
  const declared = variablesOf(rule.gates);
  const compiled = compileRule(rule.condition, declared);
  let program: Program;
  if (!compiled.ok) {
    // Answering the error costs nothing that depends on the input.
    program = { error: compiled.errors.map((e) => `${e.line}:${e.column}: ${e.message}`).join("; "), reads: [], cost: { fixed: 0, paths: [] } };
  } else {
    const variables = Object.fromEntries([...declared].map(([name, type]) => [name, type === "string" ? CelScalar.STRING : MAP]));
    const parsed = compiled.parsed;
    program = { plan: () => plan(celEnv({ variables }), parsed) as unknown as (vars: Record<string, unknown>) => unknown, reads: compiled.reads, cost: costPlanOf(parsed.expr) };
  }
  if (programs.size >= MAX_PROGRAMS) programs.clear();
  programs.set(key, program);
  return program;
}

/** Compiles and plans the rules this thread has not seen yet, so evaluating them later does only evaluation. */
export function prepareRules(rules: readonly RuleToRun[]): void {
  for (const rule of rules) {
    const program = programOf(rule);
    if (!("error" in program)) program.run ??= program.plan();
  }
}

/** The rule's cost plan (`placement.ts`), or why it must run on the rule thread; compiles it if this thread has not. */
export function costOf(rule: RuleToRun): CostPlan | { thread: ThreadReason } {
  return programOf(rule).cost;
}

/** The rule's cost plan if this thread has compiled it already; undefined if not. */
export function knownCostOf(rule: RuleToRun): CostPlan | { thread: ThreadReason } | undefined {
  return programs.get(keyOf(rule))?.cost;
}

/** The value at a dotted path of the input, cut short when large; null when absent. */
export function valueAt(input: Record<string, unknown>, path: string): unknown {
  let at: unknown = input;
  for (const part of path.split(".")) {
    if (at === null || typeof at !== "object" || Array.isArray(at) || !Object.hasOwn(at, part)) return null;
    at = (at as Record<string, unknown>)[part];
  }
  return summarized(at);
}

function summarized(value: unknown): unknown {
  if (typeof value === "string") return value.length > 200 ? `${value.slice(0, 200)}…` : value;
  if (value === null || typeof value !== "object") return value ?? null;
  const json = JSON.stringify(value);
  // A copy: values read outlive the input, on either thread.
  if (json.length <= 500) return JSON.parse(json) as unknown;
  return Array.isArray(value) ? `(a list of ${value.length} items)` : `(an object with ${Object.keys(value).length} members)`;
}

/**
 * Runs each rule over the input. `withReads`: true, each result has the values its rule read;
 * "matched", only the results that matched (or failed) have them; false, none.
 */
export function evaluateRules(rules: readonly RuleToRun[], input: Record<string, unknown>, withReads: boolean | "matched" = true): RuleResult[] {
  // Rules at one gate often read the same paths: each is looked up once per input.
  const seen = new Map<string, unknown>();
  const at = (path: string) => {
    if (!seen.has(path)) seen.set(path, valueAt(input, path));
    return seen.get(path);
  };
  return rules.map((rule) => {
    const program = programOf(rule);
    const read = (matched: boolean) => (withReads === true || (withReads === "matched" && matched) ? Object.fromEntries(program.reads.map((path) => [path, at(path)])) : {});
    if ("error" in program) return { id: rule.id, matched: true, error: `the rule does not compile: ${program.error}`, read: read(true) };
    let answer: unknown;
    try {
      program.run ??= program.plan();
      answer = program.run(input);
    } catch (error) {
      return { id: rule.id, matched: true, error: `evaluation failed: ${error instanceof Error ? error.message : String(error)}`, read: read(true) };
    }
    if (isCelError(answer)) return { id: rule.id, matched: true, error: `evaluation failed: ${answer.message}`, read: read(true) };
    if (typeof answer !== "boolean") return { id: rule.id, matched: true, error: `the rule answered a ${typeof answer}, not true or false`, read: read(true) };
    return { id: rule.id, matched: answer, read: read(answer) };
  });
}

export interface RuleTask {
  rules: RuleToRun[];
  inputs: Array<Record<string, unknown>>;
  /**
   * How many inputs, in order, that some rule matches need the values read (a dry run lists only
   * its first findings); the results of the inputs after them carry an empty `read`. Unset: all.
   */
  reads?: number;
  /** Only the results that matched need the values read (a gate's judgement): the others carry an empty `read`. */
  matchedReadsOnly?: boolean;
}

/** Evaluates every rule of the task over each input, on whichever thread calls it. */
export function runTask(task: RuleTask): RuleResult[][] {
  let reads = task.reads ?? Number.POSITIVE_INFINITY;
  return task.inputs.map((input) => {
    const results = evaluateRules(task.rules, input, reads > 0 && (task.matchedReadsOnly ? "matched" : true));
    if (results.some((r) => r.matched)) reads--;
    return results;
  });
}
