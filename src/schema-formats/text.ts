/**
 * Shared plumbing for the schema parsers: loading a specification from text or a value,
 * collecting violations with their paths, and turning paths into request-body field names
 * and (for text input) line/column positions.
 *
 * JSON text is parsed with the fast `JSON.parse`; only when there are violations to report is it
 * parsed again into a YAML AST (JSON is YAML 1.2) to find where each offending node starts. YAML
 * text is parsed once, into that AST (see `yaml-text.ts`).
 */
import { LineCounter, isAlias, isMap, isScalar, isSeq } from "yaml";
import type { Document, Node as YamlNode } from "yaml";
import type { NormalizedField, NormalizedModel, ParseResult, SchemaParser, SchemaType, Violation } from "./types.js";
import type { ParseLimits } from "./limits.js";

export type { Segment } from "../platform/paths.js";
import type { Segment } from "../platform/paths.js";
/** A path inside the specification, relative to it. */
export type Path = readonly Segment[];

import { joinPath, renderPath } from "../platform/paths.js";
import { MAX_VIOLATIONS } from "../platform/errors.js";
import { scanJsonText, valueNestsDeeperThan } from "../platform/json-depth.js";
import { firstNonJsonMember } from "../platform/json-values.js";
import { parseBoundedDocument } from "../platform/yaml-depth.js";

export { joinPath, renderPath };

/**
 * Specifications nested deeper than this are refused before any recursive library or walk sees
 * them: checked on the text before it is parsed, and on the value.
 */
export const MAX_DEPTH = 128;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function hasOwn(value: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(value, key);
}

/** Short description of a value's JSON type, for messages. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "a string";
  return `a ${typeof value}`;
}

/** Quotes a user value for a message without letting a huge value blow the message up. */
export function quote(value: unknown): string {
  let text: string;
  try {
    text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

// ---------------------------------------------------------------------------------------------
// Violations

interface Issue {
  path: Path;
  message: string;
}

/** Collects problems while a parser walks a specification. */
export class Issues {
  readonly items: Issue[] = [];
  private dropped = 0;

  add(path: Path, message: string): void {
    if (this.items.length >= MAX_VIOLATIONS) this.dropped++;
    else this.items.push({ path, message });
  }

  get count(): number {
    return this.items.length + this.dropped;
  }

  get droppedCount(): number {
    return this.dropped;
  }
}

// ---------------------------------------------------------------------------------------------
// Sources

/** A loaded specification: its value, plus the text it came from when it came as text. */
export class SpecSource {
  private doc: Document.Parsed | undefined;
  private lines: LineCounter | undefined;

  constructor(
    readonly value: unknown,
    readonly text?: string,
    parsed?: { doc: Document.Parsed; lines: LineCounter },
  ) {
    this.doc = parsed?.doc;
    this.lines = parsed?.lines;
  }

  /** 1-based position of the node at `path`, or of its nearest existing ancestor. */
  locate(path: Path): { line: number; column: number } | undefined {
    if (this.text === undefined) return undefined;
    try {
      if (!this.doc) {
        this.lines = new LineCounter();
        // The text was measured when it was loaded; the bound only restates that.
        this.doc = parseBoundedDocument(this.text, { lineCounter: this.lines, uniqueKeys: false, prettyErrors: false }, MAX_DEPTH);
      }
      const doc = this.doc;
      let node: unknown = doc.contents;
      let found: YamlNode | undefined = hasRange(node) ? (node as YamlNode) : undefined;
      for (const segment of path) {
        if (isAlias(node)) node = node.resolve(doc);
        let next: unknown;
        if (isSeq(node) && typeof segment === "number") {
          next = node.items[segment];
        } else if (isMap(node)) {
          const key = String(segment);
          const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === key);
          if (pair) next = hasRange(pair.value) ? pair.value : pair.key;
        }
        if (!hasRange(next)) break;
        node = next;
        found = next as YamlNode;
      }
      if (!found?.range) return { line: 1, column: 1 };
      const pos = this.lines!.linePos(found.range[0]);
      return { line: pos.line, column: pos.col };
    } catch {
      return undefined;
    }
  }
}

function hasRange(node: unknown): boolean {
  return typeof node === "object" && node !== null && Array.isArray((node as { range?: unknown }).range);
}

/** Why a specification could not be loaded; `path` names the member at fault inside it, if one is. */
export type LoadViolation = Omit<Violation, "field"> & { path?: Path };

export type LoadResult = { ok: true; source: SpecSource } | { ok: false; violation: LoadViolation };

export function textOf(specification: string): { text: string } | { error: string } {
  const text = specification.charCodeAt(0) === 0xfeff ? specification.slice(1) : specification;
  if (text.trim() === "") return { error: "the specification is empty" };
  return { text };
}

/** The violation for a specification nested more than `MAX_DEPTH` levels deep. */
export function tooDeep(what: string): Omit<Violation, "field"> {
  return { message: `${what}: arrays and objects are nested more than ${MAX_DEPTH} levels deep, the limit for a specification` };
}

/**
 * What every loaded specification is checked for before a parser walks it: a value that is
 * nested too deeply, or that holds a member JSON cannot carry (the specification is stored as
 * JSON, and would come back changed). Undefined when it is fine.
 */
function checkLoaded(source: SpecSource, what: string): LoadViolation | undefined {
  if (valueNestsDeeperThan(source.value, MAX_DEPTH)) return tooDeep(what);
  const strange = firstNonJsonMember(source.value);
  if (strange === undefined) return undefined;
  return { path: strange.path, message: strange.message, ...source.locate(strange.path) };
}

/** JSON text or an already-parsed JSON value. */
export function loadJson(specification: unknown): LoadResult {
  if (typeof specification !== "string") return loaded(new SpecSource(specification), "the specification");
  const t = textOf(specification);
  if ("error" in t) return { ok: false, violation: { message: t.error } };
  // Before parsing: a few kilobytes of brackets would otherwise reach every recursive step after.
  const scan = scanJsonText(t.text, MAX_DEPTH);
  if (scan.tooDeep) return { ok: false, violation: tooDeep("invalid JSON") };
  let value: unknown;
  try {
    value = JSON.parse(t.text);
  } catch {
    const { offset, message } = findJsonError(t.text);
    const { line, column } = lineColumnAt(t.text, offset);
    return { ok: false, violation: { message: `invalid JSON: ${message}`, line, column } };
  }
  const source = new SpecSource(value, t.text);
  // Only text can hold a number out of range, and only text with a number of a long exponent or digit run.
  return scan.mayHoldHugeNumber ? loaded(source, "invalid JSON") : { ok: true, source };
}

/** The result of a loaded specification: the source, or the first thing about its value that a specification may not be. */
export function loaded(source: SpecSource, what: string): LoadResult {
  const violation = checkLoaded(source, what);
  return violation ? { ok: false, violation } : { ok: true, source };
}

/** 1-based line and column of a 0-based character offset. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const end = Math.max(0, Math.min(offset, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: end - lineStart + 1 };
}

// ---------------------------------------------------------------------------------------------
// Results

export function fail(base: string, issues: Issues, source?: SpecSource): ParseResult {
  const violations: Violation[] = issues.items.map((issue) => {
    const violation: Violation = { field: renderPath(base, issue.path), message: issue.message };
    const pos = source?.locate(issue.path);
    if (pos) {
      violation.line = pos.line;
      violation.column = pos.column;
    }
    return violation;
  });
  if (issues.droppedCount > 0) {
    violations.push({ field: base, message: `${issues.droppedCount} more problems not listed (limit ${MAX_VIOLATIONS})` });
  }
  return { ok: false, violations };
}

/** The common tail of every parser: violations if any were found, else the models. */
export function finish(
  type: SchemaType,
  base: string,
  issues: Issues,
  source: SpecSource,
  models: NormalizedModel[],
  definitions?: NormalizedField[],
): ParseResult {
  if (issues.count > 0) return fail(base, issues, source);
  return definitions === undefined ? { ok: true, detectedType: type, models } : { ok: true, detectedType: type, models, definitions };
}

/** The result for a specification that could not even be loaded. */
export function loadFailure(base: string, { path, ...violation }: LoadViolation): ParseResult {
  return { ok: false, violations: [{ field: renderPath(base, path ?? []), ...violation }] };
}

// ---------------------------------------------------------------------------------------------
// JSON syntax errors

/**
 * Node's `JSON.parse` errors do not always carry a position, so after a failed parse this small
 * scanner finds the offset and nature of the first syntax error. It is iterative: arbitrarily deep
 * nesting cannot overflow the stack.
 */
export function findJsonError(text: string): { offset: number; message: string } {
  const n = text.length;
  const containers: string[] = [];
  let i = 0;
  type State = "value" | "valueOrEnd" | "key" | "keyOrEnd" | "after";
  let state: State = "value";

  const skipSpace = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const unexpected = (expected: string) =>
    i >= n
      ? { offset: n, message: `unexpected end of input, expected ${expected}` }
      : { offset: i, message: `unexpected ${quote(text[i])}, expected ${expected}` };

  // Returns an error, or undefined after moving `i` past a valid string.
  const scanString = (): { offset: number; message: string } | undefined => {
    const start = i;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return undefined;
      }
      if (c < 0x20) return { offset: i, message: "control character in string" };
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return { offset: i, message: "invalid \\u escape" };
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) return { offset: i, message: "invalid escape in string" };
        i += 2;
        continue;
      }
      i++;
    }
    return { offset: start, message: "unterminated string" };
  };

  const scanNumber = (): { offset: number; message: string } | undefined => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) return { offset: i, message: "invalid number" };
    i += m[0].length;
    return undefined;
  };

  for (;;) {
    skipSpace();
    switch (state) {
      case "valueOrEnd":
        if (text[i] === "]") {
          i++;
          containers.pop();
          state = "after";
          break;
        }
        state = "value";
        break;
      case "value": {
        const c = text[i];
        if (c === "{") {
          containers.push("{");
          i++;
          state = "keyOrEnd";
        } else if (c === "[") {
          containers.push("[");
          i++;
          state = "valueOrEnd";
        } else if (c === '"') {
          const e = scanString();
          if (e) return e;
          state = "after";
        } else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
          const e = scanNumber();
          if (e) return e;
          state = "after";
        } else {
          const literal = ["true", "false", "null"].find((l) => text.startsWith(l, i));
          if (!literal) return unexpected("a value");
          i += literal.length;
          state = "after";
        }
        break;
      }
      case "keyOrEnd":
        if (text[i] === "}") {
          i++;
          containers.pop();
          state = "after";
          break;
        }
        if (text[i] !== '"') return unexpected("a property name or '}'");
        state = "key";
        break;
      case "key": {
        if (text[i] !== '"') return unexpected("a property name");
        const e = scanString();
        if (e) return e;
        skipSpace();
        if (text[i] !== ":") return unexpected("':'");
        i++;
        state = "value";
        break;
      }
      case "after": {
        const top = containers[containers.length - 1];
        if (top === undefined) {
          if (i < n) return { offset: i, message: "unexpected content after the JSON value" };
          return { offset: 0, message: "malformed JSON" };
        }
        const close = top === "{" ? "}" : "]";
        if (text[i] === ",") {
          i++;
          state = top === "{" ? "key" : "value";
        } else if (text[i] === close) {
          i++;
          containers.pop();
        } else {
          return unexpected(`',' or '${close}'`);
        }
        break;
      }
    }
  }
}

/**
 * The parser of a format whose specification is loaded as text first (`loadJson`, `loadYaml`):
 * a specification that does not load is answered with the load's violation, else `read` reads it.
 */
export function loadingParser(type: SchemaType, load: (specification: unknown) => LoadResult, read: (source: SpecSource, basePath: string, limits?: ParseLimits) => ParseResult): SchemaParser {
  return {
    type,
    parse(specification, basePath, limits) {
      const result = load(specification);
      return result.ok ? read(result.source, basePath, limits) : loadFailure(basePath, result.violation);
    },
  };
}
