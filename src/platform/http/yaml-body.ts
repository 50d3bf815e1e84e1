/**
 * YAML request bodies for catalog documents (PRODUCT.md §3). A YAML body becomes the same plain
 * value a JSON body would; its parsed source stays with the request so that violations of the
 * document can name the line and column they refer to.
 */
import type { FastifyRequest } from "fastify";
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode } from "yaml";
import { Problem, type FieldViolation } from "../errors.js";
import { parsePath, type Segment } from "../paths.js";
import { MAX_JSON_DEPTH } from "./json-depth.js";
import type { App } from "./types.js";

export const YAML_MEDIA_TYPES = ["application/yaml", "application/x-yaml", "text/yaml"] as const;

/**
 * Aliases let a few bytes of YAML stand for a huge value ("billion laughs"); a catalog document
 * has no use for many of them.
 */
export const MAX_YAML_ALIASES = 100;

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route accepts YAML bodies besides JSON. */
    yamlBody?: boolean;
  }
}

/** Where each node of a YAML body starts, found lazily when a violation needs it. */
export class YamlSource {
  constructor(
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  /** 1-based position of the node at `path`, or of its nearest existing ancestor. */
  locate(path: readonly Segment[]): { line: number; column: number } | undefined {
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

const sources = new WeakMap<FastifyRequest, YamlSource>();

/** Parses YAML text into a plain value, refusing what a document has no business being. */
export function parseYamlBody(text: string): { value: unknown; source: YamlSource } {
  const lines = new LineCounter();
  let doc: Document.Parsed;
  let value: unknown;
  try {
    doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, strict: true });
    if (doc.errors.length > 0) {
      const error = doc.errors[0]!;
      const pos = lines.linePos(error.pos[0]);
      throw new Problem(400, `The request body is not valid YAML (line ${pos.line}, column ${pos.col}): ${error.message.split("\n")[0]}`);
    }
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (error instanceof Problem) throw error;
    // Alias limits and runaway nesting surface as plain errors (RangeError for the stack).
    const reason = error instanceof RangeError ? "it nests too deeply" : error instanceof Error ? error.message : String(error);
    throw new Problem(400, `The request body is not valid YAML: ${reason}`);
  }
  if (nestsDeeper(value, MAX_JSON_DEPTH)) {
    throw new Problem(400, `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  return { value: value === undefined ? null : value, source: new YamlSource(doc, lines) };
}

function nestsDeeper(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Registers the YAML media types; routes opt in with `config: { yamlBody: true }`, others answer 415. */
export function registerYamlBodies(app: App): void {
  app.addContentTypeParser([...YAML_MEDIA_TYPES], { parseAs: "string" }, (request, body, done) => {
    if (request.routeOptions.config?.yamlBody !== true) {
      return done(new Problem(415, "This operation takes JSON only (Content-Type: application/json)."), undefined);
    }
    try {
      const { value, source } = parseYamlBody(body.toString());
      sources.set(request, source);
      done(null, value);
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** Adds line/column to violations of a YAML body that do not carry a position of their own. */
export function positionViolations(request: FastifyRequest, violations: FieldViolation[]): FieldViolation[] {
  const source = sources.get(request);
  if (!source) return violations;
  return violations.map((v) => {
    if (v.line !== undefined) return v;
    const pos = source.locate(parsePath(v.field));
    return pos ? { ...v, ...pos } : v;
  });
}
