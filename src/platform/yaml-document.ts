/**
 * YAML documents as Steward reads and writes them: catalog documents sent as YAML become the same
 * plain value a JSON body would, and keep their source so that a violation can name its line and
 * column. Free of HTTP, so that a worker thread can do the same for big documents.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, stringify, type Document, type Node as YamlNode } from "yaml";
import { badRequest, Problem } from "./errors.js";
import { bodyTooDeep, MAX_JSON_DEPTH, valueNestsDeeperThan } from "./json-depth.js";
import { firstNonJsonMember, nonJsonMemberProblem } from "./json-values.js";
import type { Segment } from "./paths.js";
import { NestingTooDeep, parseBoundedDocument } from "./yaml-depth.js";

/**
 * Aliases let a few bytes of YAML stand for a huge value ("billion laughs"); a catalog document
 * has no use for many of them.
 */
export const MAX_YAML_ALIASES = 100;

/** 1-based line and column. */
export interface YamlPosition {
  line: number;
  column: number;
}

/**
 * The parser's own check of unique keys compares each key with every earlier one of its mapping:
 * a 64 KB body of many keys then took seconds. `duplicateKey` does the same check in one pass.
 */
const PARSE_OPTIONS = { prettyErrors: false, uniqueKeys: false, strict: true } as const;

/** The first key that repeats an earlier key of its mapping, by the member name it becomes. */
function duplicateKey(doc: Document.Parsed): YamlNode | undefined {
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isSeq(node)) for (const item of node.items) stack.push(item);
    else if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const key = pair.key;
        const name = isScalar(key) ? String(key.value) : String(key);
        if (seen.has(name)) return hasRange(key) ? (key as YamlNode) : (node as YamlNode);
        seen.add(name);
        stack.push(pair.value);
      }
    }
  }
  return undefined;
}

/** Where each node of a YAML document starts. */
export class YamlSource {
  constructor(
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  /** The source of a document known to parse (it was read with `readYaml` before). */
  static of(text: string): YamlSource {
    const lines = new LineCounter();
    return new YamlSource(parseBoundedDocument(text, { ...PARSE_OPTIONS, lineCounter: lines }, MAX_JSON_DEPTH), lines);
  }

  /** Position of the node at `path`, or of its nearest existing ancestor. */
  locate(path: readonly Segment[]): YamlPosition | undefined {
    let node: unknown = this.doc.contents;
    let found = hasRange(node) ? (node as YamlNode) : undefined;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(this.doc);
      let next: unknown;
      if (isSeq(node) && typeof segment === "number") next = node.items[segment];
      else if (isMap(node)) {
        const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment));
        if (pair) next = hasRange(pair.value) ? pair.value : pair.key;
      }
      if (!hasRange(next)) break;
      node = next;
      found = next as YamlNode;
    }
    if (!found?.range) return undefined;
    const pos = this.lines.linePos(found.range[0]);
    return { line: pos.line, column: pos.col };
  }
}

function hasRange(node: unknown): boolean {
  return typeof node === "object" && node !== null && Array.isArray((node as { range?: unknown }).range);
}

/** Parses YAML text into a plain value, refusing (400) what a document has no business being. */
export function readYaml(text: string): { value: unknown; source: YamlSource } {
  const lines = new LineCounter();
  let doc: Document.Parsed;
  let value: unknown;
  try {
    doc = parseBoundedDocument(text, { ...PARSE_OPTIONS, lineCounter: lines }, MAX_JSON_DEPTH);
    if (doc.errors.length > 0) {
      const error = doc.errors[0]!;
      const pos = lines.linePos(error.pos[0]);
      throw badRequest(`The request body is not valid YAML (line ${pos.line}, column ${pos.col}): ${error.message.split("\n")[0]}`);
    }
    const repeated = duplicateKey(doc);
    if (repeated) {
      const pos = lines.linePos(repeated.range![0]);
      throw badRequest(`The request body is not valid YAML (line ${pos.line}, column ${pos.col}): Map keys must be unique`);
    }
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (error instanceof Problem) throw error;
    if (error instanceof NestingTooDeep) throw bodyTooDeep();
    // Alias limits surface as plain errors.
    const reason = error instanceof Error ? error.message : String(error);
    throw badRequest(`The request body is not valid YAML: ${reason}`);
  }
  // Aliases can nest what the text does not.
  if (valueNestsDeeperThan(value, MAX_JSON_DEPTH)) throw bodyTooDeep();
  const source = new YamlSource(doc, lines);
  const strange = firstNonJsonMember(value);
  if (strange) throw nonJsonMemberProblem(strange, (path) => source.locate(path));
  return { value: value === undefined ? null : value, source };
}

/** A document as YAML text: long strings stay on one line, repeated objects are written out. */
export function writeYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** Whether a plain value has more than `limit` members and items, counted only up to the limit. */
export function holdsMoreThan(value: unknown, limit: number): boolean {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== "object" || current === null) continue;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (++count > limit) return true;
      stack.push(child);
    }
  }
  return false;
}
