import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";

/**
 * Where a rule is evaluated (docs/policies.md, "Where rules run"): on the thread that answers
 * requests, or on the rule thread with its cost limits. Decided from the compiled rule's syntax
 * tree, then from the size of the input it is about to read.
 *
 * Without a macro (`all`, `exists`, `exists_one`, `map`, `filter`) a rule has no loop and no
 * variable of its own: each node of its tree is evaluated at most once, and the value a node
 * answers is no larger than the values of the leaves under it together (a part of the input, a
 * literal, or a few characters of a conversion). Every function left, but `matches` and the
 * integer conversions of text, takes time in proportion to the size of its arguments. So a leaf
 * costs at most its value's size once for itself and once more for each function above it that
 * reads its argument in full, and the whole rule costs at most the sum of those: a bound the
 * input can be measured against before the rule runs.
 */

/** Why a rule always runs on the rule thread; undefined when its cost is bounded by its input. */
export type ThreadReason = "macro" | "regular expression" | "integer conversion of a non-literal";

/** A rule's cost bound, once its input is known: `fixed` plus, for each path, `times` × the size of the value there. */
export interface CostPlan {
  fixed: number;
  paths: Array<{ path: readonly string[]; times: number }>;
}

/**
 * Cost units, set so that a unit is at most about a nanosecond of the costliest function on the
 * machine of bench/README.md (docs/policies.md): per character, per element or member, and per
 * list or object (turning it into a CEL value).
 */
export const UNITS = { char: 32, element: 512, container: 1024 } as const;

/**
 * Most units one decision (every in-process rule over every input of a task) may be bounded by
 * before its rules go to the rule thread instead: a few milliseconds at worst.
 */
export const IN_PROCESS_BUDGET = 2_000_000;

/** Calls that pass booleans or a value through without reading it. */
const LIGHT: ReadonlySet<string> = new Set(["_&&_", "_||_", "!_", "@not_strictly_false", "_?_:_", "dyn", "type"]);

/** Answers the rule's cost plan, or why it must run on the rule thread. */
export function costPlanOf(root: Expr): CostPlan | { thread: ThreadReason } {
  const plan: CostPlan = { fixed: 0, paths: [] };
  const merged = new Map<string, { path: string[]; times: number }>();
  let reason: ThreadReason | undefined;
  const leaf = (path: string[], times: number) => {
    const key = path.join("\u0000");
    const at = merged.get(key);
    if (at) at.times += times;
    else merged.set(key, { path, times });
  };
  // `above`: how many functions above this node read its value in full.
  const walk = (e: Expr | undefined, above: number): void => {
    if (e === undefined || reason !== undefined) return;
    plan.fixed += UNITS.element;
    const kind = e.exprKind;
    switch (kind.case) {
      case "constExpr": {
        const c = kind.value.constantKind;
        const size = c.case === "stringValue" ? c.value.length * UNITS.char : c.case === "bytesValue" ? c.value.length * UNITS.char : 0;
        plan.fixed += (above + 1) * (UNITS.element + size);
        return;
      }
      case "identExpr":
        leaf([kind.value.name], above + 1);
        return;
      case "selectExpr": {
        const path = selectPath(e);
        if (path) leaf(path, above + 1);
        // Selecting from a computed value wraps it once more.
        else walk(kind.value.operand, above + 1);
        return;
      }
      case "callExpr": {
        const call = kind.value;
        if (call.function === "matches") reason = "regular expression";
        else if ((call.function === "int" || call.function === "uint") && call.args.some((a) => a.exprKind.case !== "constExpr")) reason = "integer conversion of a non-literal";
        const inner = LIGHT.has(call.function) ? above : above + 1;
        walk(call.target, inner);
        for (const a of call.args) walk(a, inner);
        return;
      }
      case "listExpr":
        for (const el of kind.value.elements) walk(el, above);
        return;
      case "structExpr":
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === "mapKey") walk(entry.keyKind.value, above);
          walk(entry.value, above);
        }
        return;
      case "comprehensionExpr":
        reason = "macro";
        return;
      default:
        reason = "macro";
    }
  };
  walk(root, 0);
  if (reason !== undefined) return { thread: reason };
  plan.paths = [...merged.values()];
  return plan;
}

/** `a.b.c` as ["a", "b", "c"] when the chain starts at an identifier. */
function selectPath(e: Expr): string[] | undefined {
  const parts: string[] = [];
  let at: Expr | undefined = e;
  while (at?.exprKind.case === "selectExpr") {
    parts.unshift(at.exprKind.value.field);
    at = at.exprKind.value.operand;
  }
  if (at?.exprKind.case !== "identExpr") return undefined;
  parts.unshift(at.exprKind.value.name);
  return parts;
}

/**
 * The rule's cost bound over `input`, or a number past `limit` as soon as it is known to be past
 * it: measuring never costs more than the limit it measures against.
 */
export function costOver(plan: CostPlan, input: Record<string, unknown>, limit: number): number {
  let total = plan.fixed;
  for (const { path, times } of plan.paths) {
    if (total > limit) return total;
    let at: unknown = input;
    for (const part of path) {
      if (at === null || typeof at !== "object") break;
      // Reading a member of an object turns it into a map of its members first.
      const keys = Array.isArray(at) ? 1 : Object.keys(at).length;
      total += UNITS.container + keys * UNITS.element;
      if (Array.isArray(at) || !Object.hasOwn(at, part)) {
        at = undefined;
        break;
      }
      at = (at as Record<string, unknown>)[part];
    }
    if (at !== undefined) total += times * sizeOf(at, Math.ceil((limit - total) / times) + 1);
  }
  return total;
}

/** The size of a JSON value in cost units; stops counting once past `limit`. */
export function sizeOf(value: unknown, limit: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= limit) {
    const v = stack.pop();
    total += UNITS.element;
    if (typeof v === "string") total += v.length * UNITS.char;
    else if (Array.isArray(v)) {
      total += UNITS.container;
      for (const el of v) {
        stack.push(el);
        if (total + stack.length * UNITS.element > limit) break;
      }
    }
    else if (v !== null && typeof v === "object") {
      total += UNITS.container;
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        total += UNITS.element + k.length * UNITS.char;
        if (total > limit) break;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return total;
}
