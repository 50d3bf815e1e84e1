/**
 * JSON Schema (draft-07): one schema object or an array of them, as JSON text or a value.
 * A specification that turns out to be an Avro record is handed to the Avro parser.
 */
import { Ajv } from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import formatsModule from "ajv-formats";
import type { FormatsPlugin } from "ajv-formats";
import type { LogicalType, NormalizedField, NormalizedModel, ParseResult, SchemaParser } from "./types.js";
import { looksLikeAvro, parseAvroSource } from "./avro.js";
import { Issues, MAX_DEPTH, SpecSource, finish, hasOwn, isRecord, kindOf, loadFailure, loadJson, nestsDeeperThan, quote } from "./text.js";
import type { Path, Segment } from "./text.js";

// ajv-formats is CommonJS with an `exports.default`; under NodeNext the default import is the module.
const addFormats = ((formatsModule as unknown as { default?: FormatsPlugin }).default ?? formatsModule) as FormatsPlugin;

const DRAFT_07 = "http://json-schema.org/draft-07/schema";
/** Normalization stops expanding below this depth (recursive `$ref`s are cut earlier, at the cycle). */
const MAX_NORMALIZE_DEPTH = 32;

/**
 * One shared validator for the draft-07 meta-schema. It only ever validates user schemas as
 * data, so it never registers them; compiling a user schema uses a fresh instance (see `compiles`).
 */
let metaValidator: ValidateFunction | undefined;
function metaValidate(schema: unknown): ErrorObject[] {
  if (!metaValidator) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    metaValidator = ajv.getSchema(DRAFT_07) ?? ajv.compile(ajv.getSchema(DRAFT_07)!.schema as object);
  }
  return metaValidator(schema) ? [] : [...(metaValidator.errors ?? [])];
}

/** Compiles with a throwaway instance, so `$id`s of earlier calls cannot clash with this one. */
function compileError(schema: Record<string, unknown>): string | undefined {
  try {
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.compile(schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function decodePointer(pointer: string): string[] {
  if (pointer === "" || pointer === "/") return pointer === "" ? [] : [""];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** Pointer segments → path segments, turning indexes into numbers where the value is an array. */
function pointerToPath(root: unknown, tokens: string[]): { path: Segment[]; target: unknown; found: boolean } {
  const path: Segment[] = [];
  let current: unknown = root;
  let found = true;
  for (const token of tokens) {
    if (Array.isArray(current) && /^(0|[1-9]\d*)$/.test(token)) {
      path.push(Number(token));
      current = current[Number(token)];
    } else {
      path.push(token);
      current = isRecord(current) && hasOwn(current, token) ? current[token] : undefined;
    }
    if (current === undefined) found = false;
  }
  return { path, target: current, found };
}

function errorMessage(error: ErrorObject): string {
  if (error.keyword === "enum" && Array.isArray(error.params.allowedValues)) {
    return `must be one of ${error.params.allowedValues.join(", ")}`;
  }
  return error.message ?? "is invalid";
}

/** One violation per schema location: ajv reports an `anyOf` failure plus each branch's failure. */
function metaViolations(root: unknown, errors: ErrorObject[], path: Path, issues: Issues): void {
  const groups = new Map<string, ErrorObject[]>();
  for (const error of errors) {
    const group = groups.get(error.instancePath);
    if (group) group.push(error);
    else groups.set(error.instancePath, [error]);
  }
  const pointers = [...groups.keys()];
  for (const [pointer, group] of groups) {
    const alternatives = group.some((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
    // A failed alternative with errors deeper down (e.g. `items` as a list of schemas) is
    // reported by those more precise errors alone.
    if (alternatives && pointers.some((p) => p.startsWith(`${pointer}/`))) continue;
    const messages = [...new Set(group.filter((e) => e.keyword !== "anyOf" && e.keyword !== "oneOf").map(errorMessage))];
    const message = messages.join(alternatives ? ", or it " : "; ");
    issues.add([...path, ...pointerToPath(root, decodePointer(pointer)).path], message || "is invalid");
  }
}

// Keywords whose value is a subschema, a list of subschemas, or a map of them (draft-07).
const SCHEMA_KEYWORDS = new Set(["items", "additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else"]);
const SCHEMA_LIST_KEYWORDS = new Set(["items", "allOf", "anyOf", "oneOf"]);
const SCHEMA_MAP_KEYWORDS = new Set(["properties", "patternProperties", "definitions", "$defs", "dependencies"]);

/**
 * Checks what meta-validation cannot: that patterns are valid regular expressions and local
 * `$ref`s resolve. Returns the non-local `$ref`s with their paths, for reporting compile errors.
 */
function checkRefsAndPatterns(root: Record<string, unknown>, path: Path, issues: Issues): Array<[string, Path]> {
  const external: Array<[string, Path]> = [];
  const checkRegex = (pattern: unknown, at: Path) => {
    if (typeof pattern !== "string") return;
    try {
      new RegExp(pattern, "u");
    } catch {
      issues.add(at, `invalid regular expression ${quote(pattern)}`);
    }
  };
  const stack: Array<[unknown, Path]> = [[root, path]];
  while (stack.length > 0) {
    const [schema, at] = stack.pop()!;
    if (!isRecord(schema)) continue;
    if (typeof schema.$ref === "string") {
      if (schema.$ref.startsWith("#")) {
        if (resolveLocal(root, schema.$ref) === undefined) issues.add([...at, "$ref"], `cannot resolve reference ${quote(schema.$ref)}`);
      } else {
        external.push([schema.$ref, [...at, "$ref"]]);
      }
    }
    checkRegex(schema.pattern, [...at, "pattern"]);
    const children: Array<[unknown, Path]> = [];
    for (const [key, value] of Object.entries(schema)) {
      if (SCHEMA_KEYWORDS.has(key) && isRecord(value)) children.push([value, [...at, key]]);
      if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) value.forEach((v, i) => children.push([v, [...at, key, i]]));
      if (SCHEMA_MAP_KEYWORDS.has(key) && isRecord(value)) {
        for (const [name, sub] of Object.entries(value)) {
          if (key === "patternProperties") checkRegex(name, [...at, key, name]);
          children.push([sub, [...at, key, name]]);
        }
      }
    }
    // Reversed onto the stack, so problems come out in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return external;
}

/** Resolves `#`, `#/definitions/X`, `#/$defs/X` or any other JSON pointer inside the document. */
function resolveLocal(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let tokens: string[];
  try {
    tokens = decodePointer(decodeURIComponent(ref.slice(1)));
  } catch {
    return undefined;
  }
  const { target, found } = pointerToPath(root, tokens);
  return found ? target : undefined;
}

export function looksLikeObjectSchema(schema: Record<string, unknown>): boolean {
  const t = schema.type;
  if (t === undefined) return schema.properties !== undefined;
  return t === "object" || (Array.isArray(t) && t.includes("object"));
}

// ---------------------------------------------------------------------------------------------
// Normalization

interface Normalizer {
  root: Record<string, unknown>;
  /** `$ref`s being expanded on the current branch, to cut cycles. */
  expanding: Set<string>;
}

/**
 * Follows `$ref`s, recording them in `seen`. A reference to a schema already being expanded
 * higher up (a recursive structure) comes back `cyclic`, so the caller describes it without
 * expanding it again; a chain of references that only loops yields no schema at all.
 */
function deref(schema: unknown, n: Normalizer, seen: string[]): { schema: unknown; cyclic: boolean } {
  let current = schema;
  while (isRecord(current) && typeof current.$ref === "string") {
    const ref = current.$ref;
    if (seen.includes(ref)) return { schema: undefined, cyclic: true };
    if (n.expanding.has(ref)) return { schema: resolveLocal(n.root, ref), cyclic: true };
    seen.push(ref);
    current = resolveLocal(n.root, ref);
  }
  return { schema: current, cyclic: false };
}

function typesOf(schema: Record<string, unknown>): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  return undefined;
}

/** Merges `allOf` branches that describe objects into one properties/required pair. */
function objectParts(schema: Record<string, unknown>, n: Normalizer, refs: string[]): { properties: Record<string, unknown>; required: string[] } {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const add = (s: Record<string, unknown>) => {
    if (isRecord(s.properties)) Object.assign(properties, s.properties);
    if (Array.isArray(s.required)) required.push(...s.required.filter((r): r is string => typeof r === "string"));
  };
  add(schema);
  if (Array.isArray(schema.allOf)) {
    for (const branch of schema.allOf) {
      const b = deref(branch, n, [...refs]).schema;
      if (isRecord(b)) add(b);
    }
  }
  return { properties, required };
}

function renderType(schema: Record<string, unknown>): string {
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(schema.type)) return JSON.stringify(schema.type);
  return "";
}

function normalizeField(name: string, input: unknown, inRequired: boolean, n: Normalizer, depth: number): NormalizedField {
  const refs: string[] = [];
  const { schema: resolved, cyclic } = deref(input, n, refs);
  const field: NormalizedField = { name, type: "unknown", physicalType: "", required: inRequired };
  if (isRecord(input) && typeof input.$ref === "string") field.physicalType = input.$ref;
  if (isRecord(resolved)) {
    for (const r of refs) n.expanding.add(r);
    try {
      describe(field, resolved, n, refs, cyclic ? MAX_NORMALIZE_DEPTH : depth);
    } finally {
      for (const r of refs) n.expanding.delete(r);
    }
  }
  const description = isRecord(input) && typeof input.description === "string" ? input.description : isRecord(resolved) ? resolved.description : undefined;
  if (typeof description === "string") field.description = description;
  return field;
}

function describe(field: NormalizedField, schema: Record<string, unknown>, n: Normalizer, refs: string[], depth: number): void {
  const rendered = renderType(schema);
  if (rendered !== "") field.physicalType = rendered;
  let types = typesOf(schema);
  let nullable = types?.includes("null") ?? false;
  let target = schema;

  if (types === undefined) {
    // No `type`: a nullable `anyOf`/`oneOf` picks the one non-null branch; otherwise infer.
    const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
    if (branches) {
      const resolved = branches.map((b) => deref(b, n, [...refs]).schema);
      const nonNull = resolved.filter((b) => !(isRecord(b) && b.type === "null"));
      nullable = nonNull.length < resolved.length;
      if (nonNull.length === 1 && isRecord(nonNull[0])) {
        target = nonNull[0];
        types = typesOf(target);
        if (field.physicalType === "") field.physicalType = renderType(target);
      } else {
        field.type = nonNull.length === 0 ? "null" : "union";
        field.required = field.required && !nullable;
        return;
      }
    }
    if (types === undefined) {
      const inferred =
        target.properties !== undefined || target.allOf !== undefined ? "object"
        : target.items !== undefined ? "array"
        : Array.isArray(target.enum) && target.enum.every((v) => typeof v === "string") ? "string"
        : target.const !== undefined ? (typeof target.const === "number" ? "number" : typeof target.const === "boolean" ? "boolean" : "string")
        : undefined;
      types = inferred ? [inferred] : [];
    }
  }
  field.required = field.required && !nullable;
  const nonNull = types.filter((t) => t !== "null");
  if (nonNull.length === 0) {
    field.type = types.includes("null") ? "null" : "unknown";
    return;
  }
  if (nonNull.length > 1) {
    field.type = "union";
    return;
  }
  field.type = logicalOf(nonNull[0], target);
  if (field.type === "enum") field.symbols = (target.enum as string[]).slice();
  if (depth >= MAX_NORMALIZE_DEPTH) return;
  if (field.type === "object") {
    const { properties, required } = objectParts(target, n, refs);
    if (Object.keys(properties).length > 0) {
      field.fields = Object.entries(properties).map(([k, v]) => normalizeField(k, v, required.includes(k), n, depth + 1));
    } else if (isRecord(target.additionalProperties)) {
      field.type = "map";
      field.items = normalizeField("values", target.additionalProperties, true, n, depth + 1);
    }
  } else if (field.type === "array" && isRecord(target.items)) {
    field.items = normalizeField("items", target.items, true, n, depth + 1);
  }
}

function logicalOf(type: string, schema: Record<string, unknown>): LogicalType {
  switch (type) {
    case "string":
      if (schema.format === "date") return "date";
      if (schema.format === "date-time") return "timestamp";
      if (schema.format === "time") return "time";
      if (schema.contentEncoding === "base64") return "bytes";
      if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === "string")) return "enum";
      return "string";
    case "integer":
    case "number":
    case "boolean":
    case "object":
    case "array":
    case "null":
      return type;
    default:
      return "unknown";
  }
}

function modelName(schema: Record<string, unknown>, index: number): string {
  if (typeof schema.title === "string" && schema.title.trim() !== "") return schema.title;
  if (typeof schema.$id === "string") {
    const segment = schema.$id.replace(/[#?].*$/, "").replace(/\/+$/, "").split("/").pop() ?? "";
    const name = segment.replace(/(\.schema)?\.json$/i, "");
    if (name !== "") return name;
  }
  return `model${index + 1}`;
}

// ---------------------------------------------------------------------------------------------

function parseOne(schema: unknown, path: Path, index: number, issues: Issues): NormalizedModel | undefined {
  if (!isRecord(schema)) {
    issues.add(path, `a JSON Schema must be an object, not ${kindOf(schema)}`);
    return undefined;
  }
  const before = issues.count;
  if (nestsDeeperThan(schema, MAX_DEPTH)) {
    issues.add(path, `the schema is nested more than ${MAX_DEPTH} levels deep`);
    return undefined;
  }
  if (schema.$schema !== undefined) {
    const s = typeof schema.$schema === "string" ? schema.$schema.replace(/#$/, "") : undefined;
    if (s !== DRAFT_07 && s !== "https://json-schema.org/draft-07/schema") {
      issues.add([...path, "$schema"], `only draft-07 is supported ($schema "${DRAFT_07}#"), not ${quote(schema.$schema)}`);
      return undefined;
    }
  }
  metaViolations(schema, metaValidate(schema), path, issues);
  const external = checkRefsAndPatterns(schema, path, issues);
  if (issues.count === before) {
    const error = compileError(schema);
    if (error !== undefined) {
      const ref = external.find(([r]) => error.includes(r));
      issues.add(ref ? ref[1] : path, ref ? `cannot resolve reference ${quote(ref[0])}` : error);
    }
  }

  const n: Normalizer = { root: schema, expanding: new Set() };
  const rootRefs: string[] = [];
  const resolvedRoot = deref(schema, n, rootRefs).schema;
  if (issues.count === before) {
    if (!isRecord(resolvedRoot)) {
      issues.add([...path, "$ref"], "the root reference does not lead to a schema object");
    } else if (!looksLikeObjectSchema(resolvedRoot)) {
      issues.add([...path, "type"], `the schema of a model must describe an object (type "object"), not ${quote(resolvedRoot.type)}`);
    } else if (!isRecord(resolvedRoot.properties) && !Array.isArray(resolvedRoot.allOf)) {
      issues.add([...path, "properties"], "the schema of a model must have properties");
    }
  }
  if (issues.count !== before || !isRecord(resolvedRoot)) return undefined;

  // The root is being expanded too: `{"$ref": "#"}` inside it is a recursive reference.
  for (const r of ["#", ...rootRefs]) n.expanding.add(r);
  const { properties, required } = objectParts(resolvedRoot, n, rootRefs);
  const fields = Object.entries(properties).map(([k, v]) => normalizeField(k, v, required.includes(k), n, 1));
  const model: NormalizedModel = { name: modelName(schema, index), kind: "object", fields };
  const description = typeof schema.description === "string" ? schema.description : resolvedRoot.description;
  if (typeof description === "string") model.description = description;
  return model;
}

export function parseJsonSchemaSource(source: SpecSource, base: string): ParseResult {
  if (looksLikeAvro(source.value)) return parseAvroSource(source, base);
  const issues = new Issues();
  const models: NormalizedModel[] = [];
  const root = source.value;
  if (Array.isArray(root) && root.length === 0) issues.add([], "at least one JSON Schema is required");
  const items: Array<[unknown, Path]> = Array.isArray(root) ? root.map((s, i) => [s, [i]]) : [[root, []]];
  const seen = new Map<string, number>();
  items.forEach(([schema, path], i) => {
    const model = parseOne(schema, path, i, issues);
    if (!model) return;
    const first = seen.get(model.name);
    if (first !== undefined) {
      const s = schema as Record<string, unknown>;
      issues.add([...path, typeof s.title === "string" ? "title" : "$id"], `duplicate model name ${quote(model.name)} (also [${first}])`);
    } else {
      seen.set(model.name, i);
    }
    models.push(model);
  });
  return finish("jsonschema", base, issues, source, models);
}

export const jsonschemaParser: SchemaParser = {
  type: "jsonschema",
  parse(specification, basePath) {
    const loaded = loadJson(specification);
    if (!loaded.ok) return loadFailure(basePath, loaded.violation);
    return parseJsonSchemaSource(loaded.source, basePath);
  },
};
