import { parse } from "@bufbuild/cel";
import type { Expr, ParsedExpr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import { MAX_NESTING, MAX_NODES, MAX_RULE_LENGTH, type InputType } from "./gates.js";

/**
 * Compiling and type-checking a rule before it is stored (docs/policies.md): it must parse, name
 * only its gates' input variables and the functions listed here, combine values of types that
 * go together, and come out as a bool. Pure: no I/O, no clock.
 */

export interface RuleError {
  message: string;
  /** 1-based line and column of the offending part of the rule text. */
  line: number;
  column: number;
}

export type Compiled = { ok: true; parsed: ParsedExpr & { expr: Expr }; reads: string[] } | { ok: false; errors: RuleError[] };

type T = "bool" | "int" | "uint" | "double" | "string" | "bytes" | "null" | "list" | "map" | "timestamp" | "duration" | "type" | "dyn";

const NUMERIC: ReadonlySet<T> = new Set(["int", "uint", "double"]);

/** Functions a rule may call, with the type they answer (dyn: depends on the arguments). */
const FUNCTIONS: Record<string, T> = {
  size: "int",
  contains: "bool",
  startsWith: "bool",
  endsWith: "bool",
  matches: "bool",
  int: "int",
  uint: "uint",
  double: "double",
  string: "string",
  bool: "bool",
  bytes: "bytes",
  timestamp: "timestamp",
  duration: "duration",
  type: "type",
  dyn: "dyn",
  getFullYear: "int",
  getMonth: "int",
  getDate: "int",
  getDayOfMonth: "int",
  getDayOfWeek: "int",
  getDayOfYear: "int",
  getHours: "int",
  getMinutes: "int",
  getSeconds: "int",
  getMilliseconds: "int",
  "_&&_": "bool",
  "_||_": "bool",
  "!_": "bool",
  "@not_strictly_false": "bool",
  "_==_": "bool",
  "_!=_": "bool",
  "_<_": "bool",
  "_<=_": "bool",
  "_>_": "bool",
  "_>=_": "bool",
  "@in": "bool",
  "_[_]": "dyn",
  "_?_:_": "dyn",
  "_+_": "dyn",
  "_-_": "dyn",
  "_*_": "dyn",
  "_/_": "dyn",
  "_%_": "dyn",
  "-_": "dyn",
};

const OPERATOR_WORDS: Record<string, string> = { "_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%", "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">=" };

/** Where `offset` is in `text`, 1-based. */
function place(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lines = before.split("\n");
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** The deepest nesting of brackets outside string literals, and where it first passes `MAX_NESTING`. */
function tooDeep(text: string): number | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== undefined) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "(" || ch === "[" || ch === "{") {
      if (++depth > MAX_NESTING) return i;
    } else if (ch === ")" || ch === "]" || ch === "}") depth--;
  }
  return undefined;
}

/** Compiles `text` against the input variables `declared`; answers the paths it reads from them. */
export function compileRule(text: string, declared: ReadonlyMap<string, InputType>): Compiled {
  if (text.length > MAX_RULE_LENGTH) return { ok: false, errors: [{ message: `the rule is ${text.length} characters long; at most ${MAX_RULE_LENGTH} are allowed`, line: 1, column: 1 }] };
  const deep = tooDeep(text);
  if (deep !== undefined) return { ok: false, errors: [{ message: `brackets nest deeper than ${MAX_NESTING} levels`, ...place(text, deep) }] };
  let parsed: ParsedExpr & { expr: Expr };
  try {
    parsed = parse(text);
  } catch (error) {
    const location = (error as { location?: { start?: { line?: number; column?: number } } }).location?.start;
    const message = (error as { rawMessage?: string }).rawMessage ?? (error instanceof Error ? error.message : String(error));
    return { ok: false, errors: [{ message: `syntax error: ${message}`, line: location?.line ?? 1, column: location?.column ?? 1 }] };
  }
  const positions = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  const errors: RuleError[] = [];
  const reads = new Set<string>();
  let nodes = 0;
  const fail = (e: Expr, message: string) => errors.push({ message, ...place(text, positions[String(e.id)] ?? 0) });

  const infer = (e: Expr, scope: ReadonlyMap<string, T>): T => {
    if (++nodes > MAX_NODES) {
      if (nodes === MAX_NODES + 1) fail(e, `the rule has more than ${MAX_NODES} parts`);
      return "dyn";
    }
    const kind = e.exprKind;
    switch (kind.case) {
      case "constExpr": {
        const c = kind.value.constantKind.case;
        return c === "boolValue" ? "bool" : c === "int64Value" ? "int" : c === "uint64Value" ? "uint" : c === "doubleValue" ? "double" : c === "stringValue" ? "string" : c === "bytesValue" ? "bytes" : c === "nullValue" ? "null" : "dyn";
      }
      case "identExpr": {
        const t = scope.get(kind.value.name);
        if (t === undefined) {
          fail(e, `undeclared reference to '${kind.value.name}' (the input here is ${[...declared.keys()].join(", ")})`);
          return "dyn";
        }
        if (declared.has(kind.value.name) && !scope.has(`#bound:${kind.value.name}`)) reads.add(kind.value.name);
        return t;
      }
      case "selectExpr": {
        const path = selectPath(e);
        if (path !== undefined && declared.has(path[0]!) && !scope.has(`#bound:${path[0]}`)) reads.add(path.join("."));
        const operand = kind.value.operand ? inferQuiet(kind.value.operand, scope, path !== undefined) : "dyn";
        if (operand !== "map" && operand !== "dyn") fail(e, `a ${operand} has no field '${kind.value.field}'`);
        return kind.value.testOnly ? "bool" : "dyn";
      }
      case "listExpr":
        for (const el of kind.value.elements) infer(el, scope);
        return "list";
      case "structExpr":
        if (kind.value.messageName !== "") {
          fail(e, `messages ('${kind.value.messageName}') cannot be built in a rule`);
          return "dyn";
        }
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === "mapKey") infer(entry.keyKind.value, scope);
          if (entry.value) infer(entry.value, scope);
        }
        return "map";
      case "comprehensionExpr": {
        const c = kind.value;
        const range = c.iterRange ? infer(c.iterRange, scope) : "dyn";
        if (range !== "list" && range !== "map" && range !== "dyn") fail(c.iterRange!, `cannot iterate over a ${range}`);
        const accu = c.accuInit ? infer(c.accuInit, scope) : "dyn";
        const inner = new Map(scope);
        for (const v of [c.iterVar, c.iterVar2].filter((x) => x !== "")) {
          inner.set(v, "dyn");
          inner.set(`#bound:${v}`, "dyn");
        }
        inner.set(c.accuVar, accu === "bool" ? "bool" : "dyn");
        inner.set(`#bound:${c.accuVar}`, "dyn");
        if (c.loopCondition) infer(c.loopCondition, inner);
        if (c.loopStep) infer(c.loopStep, inner);
        return c.result ? infer(c.result, inner) : "dyn";
      }
      case "callExpr": {
        const call = kind.value;
        const answer = FUNCTIONS[call.function];
        const target = call.target ? infer(call.target, scope) : undefined;
        const args = call.args.map((a) => infer(a, scope));
        if (answer === undefined) {
          fail(e, `undeclared function '${call.function}'`);
          return "dyn";
        }
        return callType(e, call.function, target === undefined ? args : [target, ...args], answer, fail);
      }
      default:
        fail(e, "unsupported expression");
        return "dyn";
    }
  };
  // A select chain reads its full path once, not each prefix.
  const inferQuiet = (e: Expr, scope: ReadonlyMap<string, T>, quiet: boolean): T => {
    if (!quiet) return infer(e, scope);
    if (e.exprKind.case === "identExpr") {
      const t = scope.get(e.exprKind.value.name);
      if (t === undefined) fail(e, `undeclared reference to '${e.exprKind.value.name}' (the input here is ${[...declared.keys()].join(", ")})`);
      nodes++;
      return t ?? "dyn";
    }
    if (e.exprKind.case === "selectExpr") {
      nodes++;
      const operand = e.exprKind.value.operand ? inferQuiet(e.exprKind.value.operand, scope, true) : "dyn";
      if (operand !== "map" && operand !== "dyn") fail(e, `a ${operand} has no field '${e.exprKind.value.field}'`);
      return e.exprKind.value.testOnly ? "bool" : "dyn";
    }
    return infer(e, scope);
  };

  const scope = new Map<string, T>([...declared].map(([name, type]) => [name, type as T]));
  const result = infer(parsed.expr, scope);
  if (errors.length === 0 && result !== "bool" && result !== "dyn") errors.push({ message: `the rule must answer true or false, not a ${result}`, line: 1, column: 1 });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, parsed, reads: [...reads].sort() };
}

/** `a.b.c` as ["a", "b", "c"] when the chain starts at an identifier. */
export function selectPath(e: Expr): string[] | undefined {
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

/** The type a call answers, and an error where its arguments' known types cannot go together. */
function callType(e: Expr, fn: string, args: T[], answer: T, fail: (e: Expr, m: string) => void): T {
  const known = args.filter((a) => a !== "dyn");
  const mismatch = () => fail(e, `no matching overload for '${OPERATOR_WORDS[fn] ?? fn}' applied to (${args.join(", ")})`);
  switch (fn) {
    case "_&&_":
    case "_||_":
    case "!_":
      if (known.some((a) => a !== "bool")) mismatch();
      return "bool";
    case "_<_":
    case "_<=_":
    case "_>_":
    case "_>=_":
      if (known.length === 2 && known[0] !== known[1] && !(NUMERIC.has(known[0]!) && NUMERIC.has(known[1]!))) mismatch();
      return "bool";
    case "_+_": {
      if (known.length < 2) return known[0] === "timestamp" ? "timestamp" : "dyn";
      const [a, b] = known as [T, T];
      if (a === b && ["int", "uint", "double", "string", "bytes", "list", "duration"].includes(a)) return a;
      if ((a === "timestamp" && b === "duration") || (a === "duration" && b === "timestamp")) return "timestamp";
      mismatch();
      return "dyn";
    }
    case "_-_":
    case "_*_":
    case "_/_":
    case "_%_": {
      if (known.length < 2) return "dyn";
      const [a, b] = known as [T, T];
      if (a === b && NUMERIC.has(a)) return a;
      if (fn === "_-_" && a === "timestamp" && b === "timestamp") return "duration";
      if (fn === "_-_" && a === "timestamp" && b === "duration") return "timestamp";
      if (fn === "_-_" && a === "duration" && b === "duration") return "duration";
      mismatch();
      return "dyn";
    }
    case "size":
      if (known.length === 1 && !["string", "bytes", "list", "map"].includes(known[0]!)) mismatch();
      return "int";
    case "contains":
    case "startsWith":
    case "endsWith":
    case "matches":
      if (known.some((a) => a !== "string")) mismatch();
      return "bool";
    default:
      return answer;
  }
}
