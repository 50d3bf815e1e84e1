import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import { selectPath } from "./check.js";

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

/**
 * A rule's cost bound, once its input is known: `fixed`, plus for each path the cost of reaching
 * it `reached` times and `times` × the size of the value there.
 */
export interface CostPlan {
  fixed: number;
  paths: Array<{ path: readonly string[]; key: string; reached: number; times: number }>;
}

/**
 * Cost units, set so that a unit is at most about a nanosecond of the costliest function on the
 * machine of bench/README.md (docs/policies.md): per character, per element or member, and per
 * list or object (turning it into a CEL value).
 */
export const UNITS = { char: 32, element: 1024, container: 1024 } as const;

/**
 * Most units one decision (every in-process rule over every input of a task) may be bounded by;
 * the rules past it go to the rule thread. A few milliseconds of the costliest functions at most
 * (bench/README.md); a hundred simple rules over a small contract are bounded by about 3,400,000.
 */
export const IN_PROCESS_BUDGET = 6_000_000;

/**
 * Longest rule the thread that answers requests compiles (docs/policies.md): parsing took about
 * 1 ms per 30 characters on the loaded two-core machine of bench/README.md; longer rules stay on
 * the rule thread.
 */
export const MAX_IN_PROCESS_LENGTH = 500;

/** Calls that pass booleans or a value through without reading it. */
const LIGHT: ReadonlySet<string> = new Set(["_&&_", "_||_", "!_", "@not_strictly_false", "_?_:_", "dyn", "type"]);

/** Answers the rule's cost plan, or why it must run on the rule thread. */
export function costPlanOf(root: Expr): CostPlan | { thread: ThreadReason } {
  const plan: CostPlan = { fixed: 0, paths: [] };
  const merged = new Map<string, { path: string[]; key: string; reached: number; times: number }>();
  let reason: ThreadReason | undefined;
  const leaf = (path: string[], times: number) => {
    const key = path.join("\u0000");
    const at = merged.get(key);
    if (at) {
      at.reached++;
      at.times += times;
    } else merged.set(key, { path, key, reached: 1, times });
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
      // A path's value is read once to answer it, once more into the verdict, and once by each function above.
      case "identExpr":
        leaf([kind.value.name], above + 2);
        return;
      case "selectExpr": {
        const path = selectPath(e);
        if (path) leaf(path, above + 2);
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

/**
 * The rule's cost bound over `input`; past `limit` as soon as it is known to be. `sizes` keeps,
 * by path, the cost of reaching it plus the size of its value (counted up to `limit` only, so
 * measuring never costs more than the limit it measures against), for the next rule reading it.
 */
export function costOver(plan: CostPlan, input: Record<string, unknown>, limit: number, sizes = new Map<string, [number, number]>()): number {
  let total = plan.fixed;
  for (const { path, key, reached, times } of plan.paths) {
    if (total > limit) return total;
    let size = sizes.get(key);
    if (size === undefined) {
      size = pathSize(input, path, limit);
      sizes.set(key, size);
    }
    total += reached * size[0] + times * size[1];
  }
  return total;
}

/** The cost of reaching `path` (each object on the way is turned into a map of its members), and the size of its value. */
function pathSize(input: Record<string, unknown>, path: readonly string[], limit: number): [number, number] {
  let reach = 0;
  let at: unknown = input;
  for (const part of path) {
    if (at === null || typeof at !== "object") break;
    reach += UNITS.container + (Array.isArray(at) ? 1 : Object.keys(at).length) * UNITS.element;
    if (Array.isArray(at) || !Object.hasOwn(at, part)) return [reach, 0];
    at = (at as Record<string, unknown>)[part];
  }
  return [reach, sizeOf(at, limit)];
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
