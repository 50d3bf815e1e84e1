/**
 * JSON Schema (draft-07, 2019-09 and 2020-12, by `$schema`; draft-07 when absent): one schema
 * object or an array of them, as JSON text or a value. A specification that turns out to be an
 * Avro record is handed to the Avro parser.
 */
import { Ajv } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ErrorObject, Options, ValidateFunction } from "ajv";
import formatsModule from "ajv-formats";
import type { FormatsPlugin } from "ajv-formats";
import type { LogicalType, NormalizedField, NormalizedModel, ParseResult, SchemaParser } from "./types.js";
import { looksLikeAvro, parseAvroSource } from "./avro.js";
import { Definitions } from "./definitions.js";
import { DEFAULT_PARSE_LIMITS, FieldLimitExceeded, type ParseLimits } from "./limits.js";
import { Issues, MAX_DEPTH, SpecSource, finish, hasOwn, isRecord, kindOf, loadingParser, loadJson, quote } from "./text.js";
import { valueNestsDeeperThan } from "../platform/json-depth.js";
import type { Path, Segment } from "./text.js";

// ajv-formats is CommonJS with an `exports.default`; under NodeNext the default import is the module.
const addFormats = ((formatsModule as unknown as { default?: FormatsPlugin }).default ?? formatsModule) as unknown as (ajv: Ajv) => Ajv;

type Draft = "draft-07" | "2019-09" | "2020-12";

/** The drafts Steward validates against, by the meta-schema URI `$schema` names (without `#`). */
const DRAFTS: ReadonlyArray<{ draft: Draft; uri: string; spellings: string[]; create: (options: Options) => Ajv }> = [
  {
    draft: "draft-07",
    uri: "http://json-schema.org/draft-07/schema",
    spellings: ["http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema"],
    create: (options) => new Ajv(options),
  },
  {
    draft: "2019-09",
    uri: "https://json-schema.org/draft/2019-09/schema",
    spellings: ["https://json-schema.org/draft/2019-09/schema", "http://json-schema.org/draft/2019-09/schema"],
    create: (options) => new Ajv2019(options) as unknown as Ajv,
  },
  {
    draft: "2020-12",
    uri: "https://json-schema.org/draft/2020-12/schema",
    spellings: ["https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft/2020-12/schema"],
    create: (options) => new Ajv2020(options) as unknown as Ajv,
  },
];

function draftOf(schema: Record<string, unknown>): (typeof DRAFTS)[number] | undefined {
  if (schema.$schema === undefined) return DRAFTS[0];
  if (typeof schema.$schema !== "string") return undefined;
  const uri = schema.$schema.replace(/#$/, "");
  return DRAFTS.find((d) => d.spellings.includes(uri));
}

/** Normalization stops expanding below this depth (recursive `$ref`s are cut earlier, at the cycle). */
const MAX_NORMALIZE_DEPTH = 32;

/**
 * One shared validator per draft's meta-schema. It only ever validates user schemas as data, so
 * it never registers them; compiling a user schema uses a fresh instance (see `compileError`).
 */
const metaValidators = new Map<Draft, ValidateFunction>();
function metaValidate(schema: unknown, draft: (typeof DRAFTS)[number]): ErrorObject[] {
  let validate = metaValidators.get(draft.draft);
  if (!validate) {
    const ajv = draft.create({ strict: false, allErrors: true });
    validate = ajv.getSchema(draft.uri)!;
    metaValidators.set(draft.draft, validate);
  }
  return validate(schema) ? [] : [...(validate.errors ?? [])];
}

/** Compiles with a throwaway instance, so `$id`s of earlier calls cannot clash with this one. */
function compileError(schema: Record<string, unknown>, draft: (typeof DRAFTS)[number]): string | undefined {
  try {
    const ajv = draft.create({ strict: false, allErrors: true, validateSchema: false, inlineRefs: false, code: { optimize: false } });
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

// Keywords whose value is a subschema, a list of subschemas, or a map of them (draft-07 to 2020-12).
const SCHEMA_KEYWORDS = new Set([
  "items", "additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else",
  "unevaluatedItems", "unevaluatedProperties", "contentSchema",
]);
const SCHEMA_LIST_KEYWORDS = new Set(["items", "prefixItems", "allOf", "anyOf", "oneOf"]);
const SCHEMA_MAP_KEYWORDS = new Set(["properties", "patternProperties", "definitions", "$defs", "dependencies", "dependentSchemas"]);

/** The reference a schema makes: `$ref`, or the recursive references of 2019-09 and 2020-12. */
function refOf(schema: Record<string, unknown>): string | undefined {
  for (const key of ["$ref", "$recursiveRef", "$dynamicRef"]) if (typeof schema[key] === "string") return schema[key] as string;
  return undefined;
}

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
  /** Where each schema that makes a local reference is, and its references in document order. */
  const referring = new Map<object, Path>();
  const local: Array<[string, Path]> = [];
  const stack: Array<[unknown, Path]> = [[root, path]];
  while (stack.length > 0) {
    const [schema, at] = stack.pop()!;
    if (!isRecord(schema)) continue;
    const ref = refOf(schema);
    if (ref !== undefined) {
      const key = refKey(schema);
      if (ref.startsWith("#")) {
        if (resolveLocal(root, ref) === undefined) issues.add([...at, key], `cannot resolve reference ${quote(ref)}`);
        referring.set(schema, at);
        local.push([ref, [...at, key]]);
      } else {
        external.push([ref, [...at, key]]);
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
  checkRefCycles(root, local, referring, issues);
  return external;
}

function refKey(schema: Record<string, unknown>): string {
  return typeof schema.$ref === "string" ? "$ref" : typeof schema.$recursiveRef === "string" ? "$recursiveRef" : "$dynamicRef";
}

/**
 * Reports each cycle of references that never reaches a schema (`A` refers to `B`, which refers to
 * `A`): no validator can evaluate one, and ajv's compiler recurses through it until the stack
 * ends. Each reference is followed once, whatever the number of chains through it.
 */
function checkRefCycles(root: Record<string, unknown>, refs: Array<[string, Path]>, referring: Map<object, Path>, issues: Issues): void {
  const settled = new Set<string>();
  for (const [first, from] of refs) {
    const chain: string[] = [];
    const onChain = new Map<string, Record<string, unknown>>();
    let ref: string | undefined = first;
    while (ref !== undefined && ref.startsWith("#") && !settled.has(ref)) {
      const target = resolveLocal(root, ref);
      if (onChain.has(ref)) {
        const cycle = chain.slice(chain.indexOf(ref));
        const schema = onChain.get(ref)!;
        // At the first reference of the cycle; a cycle through places that are no schema keyword at the reference that led there.
        const at = referring.get(schema);
        issues.add(at ? [...at, refKey(schema)] : from, `reference cycle with no schema: ${[...cycle, ref].join(" → ")}`);
        break;
      }
      if (!isRecord(target)) break;
      chain.push(ref);
      onChain.set(ref, target);
      ref = refOf(target);
    }
    for (const r of chain) settled.add(r);
  }
}

/** Plain-name fragments (`#name`) by the `$anchor`, `$dynamicAnchor` or draft-07 `$id: "#name"` that declares them. */
const anchorCache = new WeakMap<object, Map<string, unknown>>();
function anchorsOf(root: Record<string, unknown>): Map<string, unknown> {
  let anchors = anchorCache.get(root);
  if (anchors) return anchors;
  anchors = new Map();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const child of node) if (typeof child === "object" && child !== null) stack.push(child);
      continue;
    }
    if (!isRecord(node)) continue;
    for (const key of ["$anchor", "$dynamicAnchor"]) if (typeof node[key] === "string" && !anchors.has(node[key] as string)) anchors.set(node[key] as string, node);
    if (typeof node.$id === "string" && node.$id.startsWith("#") && !anchors.has(node.$id.slice(1))) anchors.set(node.$id.slice(1), node);
    for (const child of Object.values(node)) if (typeof child === "object" && child !== null) stack.push(child);
  }
  anchorCache.set(root, anchors);
  return anchors;
}

/** Resolves `#`, `#/definitions/X`, `#/$defs/X` or any other JSON pointer, or a `#name` anchor, inside the document. */
function resolveLocal(root: Record<string, unknown>, ref: string): unknown {
  if (ref === "#") return root;
  if (/^#[A-Za-z_][-A-Za-z0-9._]*$/.test(ref)) return anchorsOf(root).get(ref.slice(1));
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
  /** Prefix of this model's definition names: the model's name. */
  model: string;
  /** Every schema described as a field's type, by identity: described once, referred to after. */
  definitions: Definitions<object>;
  limits: ParseLimits;
  fields: number;
}

/** A schema reached at a JSON pointer, after following its references. */
interface Located {
  schema: unknown;
  pointer: string;
}

function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Follows references; a chain that only loops yields no schema at all. */
function deref(schema: unknown, n: Normalizer, pointer: string): Located {
  let current = schema;
  let at = pointer;
  const seen = new Set<string>();
  for (let ref = isRecord(current) ? refOf(current) : undefined; ref !== undefined; ref = isRecord(current) ? refOf(current) : undefined) {
    if (seen.has(ref)) return { schema: undefined, pointer: at };
    seen.add(ref);
    current = resolveLocal(n.root, ref);
    at = ref;
  }
  return { schema: current, pointer: at };
}

function typesOf(schema: Record<string, unknown>): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  return undefined;
}

/** True when `null` is one of the values the schema allows outright. */
function allowsNull(schema: Record<string, unknown>, n: Normalizer, pointer: string): boolean {
  const types = typesOf(schema);
  if (types !== undefined) return types.includes("null");
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : [];
  return branches.some((b) => {
    const resolved = deref(b, n, pointer).schema;
    return isRecord(resolved) && resolved.type === "null";
  });
}

/** Merges `allOf` branches that describe objects into one property list and required set. */
function objectParts(schema: Record<string, unknown>, n: Normalizer, pointer: string): { properties: Map<string, Located>; required: Set<string> } {
  const properties = new Map<string, Located>();
  const required = new Set<string>();
  const add = (s: Record<string, unknown>, at: string) => {
    if (isRecord(s.properties)) {
      for (const [name, sub] of Object.entries(s.properties)) properties.set(name, { schema: sub, pointer: `${at}/properties/${escapeToken(name)}` });
    }
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === "string") required.add(r);
  };
  add(schema, pointer);
  if (Array.isArray(schema.allOf)) {
    schema.allOf.forEach((branch, i) => {
      const b = deref(branch, n, `${pointer}/allOf/${i}`);
      if (isRecord(b.schema)) add(b.schema, b.pointer);
    });
  }
  return { properties, required };
}

function renderType(schema: Record<string, unknown>): string {
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(schema.type)) return JSON.stringify(schema.type);
  return "";
}

function normalizeField(name: string, input: Located, inRequired: boolean, n: Normalizer, depth: number): NormalizedField {
  if (++n.fields > n.limits.maxFields) throw new FieldLimitExceeded(n.limits.maxFields);
  const { schema: resolved, pointer } = deref(input.schema, n, input.pointer);
  const ref = isRecord(input.schema) ? refOf(input.schema) : undefined;
  const description =
    isRecord(input.schema) && typeof input.schema.description === "string" ? input.schema.description
    : isRecord(resolved) && typeof resolved.description === "string" ? resolved.description
    : undefined;
  const field: NormalizedField = { name, type: "unknown", physicalType: ref ?? "", required: inRequired };
  if (isRecord(resolved)) {
    if (n.definitions.has(resolved) && !n.definitions.isSimple(resolved)) {
      const physicalType = renderType(resolved) || (ref ?? "");
      // Only the use site's own description: the definition's is in its first use, once.
      const own = isRecord(input.schema) && typeof input.schema.description === "string" ? input.schema.description : undefined;
      return n.definitions.refer(resolved, { name, physicalType, required: inRequired && !allowsNull(resolved, n, pointer), description: own });
    }
    const described = depth < MAX_NORMALIZE_DEPTH && !n.definitions.has(resolved);
    if (described) n.definitions.begin(resolved, `${n.model}${pointer}`, field);
    describe(field, { schema: resolved, pointer }, n, depth);
    if (described) n.definitions.end(resolved);
  }
  if (description !== undefined) field.description = description;
  return field;
}

function describe(field: NormalizedField, at: Located, n: Normalizer, depth: number): void {
  const schema = at.schema as Record<string, unknown>;
  const rendered = renderType(schema);
  if (rendered !== "") field.physicalType = rendered;
  let types = typesOf(schema);
  let nullable = types?.includes("null") ?? false;
  let target = schema;
  let targetPointer = at.pointer;

  if (types === undefined) {
    // No `type`: a nullable `anyOf`/`oneOf` picks the one non-null branch; otherwise infer.
    const keyword = Array.isArray(schema.anyOf) ? "anyOf" : Array.isArray(schema.oneOf) ? "oneOf" : undefined;
    if (keyword) {
      const resolved = (schema[keyword] as unknown[]).map((b, i) => deref(b, n, `${at.pointer}/${keyword}/${i}`));
      const nonNull = resolved.filter((b) => !(isRecord(b.schema) && b.schema.type === "null"));
      nullable = nonNull.length < resolved.length;
      if (nonNull.length === 1 && isRecord(nonNull[0].schema)) {
        target = nonNull[0].schema;
        targetPointer = nonNull[0].pointer;
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
        : target.items !== undefined || target.prefixItems !== undefined ? "array"
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
  // Length bounds are part of what a string field guarantees: a narrower maxLength breaks writers.
  if (field.type === "string") {
    const { minLength, maxLength } = target;
    if (typeof minLength === "number" && Number.isInteger(minLength) && minLength >= 0) field.minLength = minLength;
    if (typeof maxLength === "number" && Number.isInteger(maxLength) && maxLength >= 0) field.maxLength = maxLength;
  }
  if (depth >= MAX_NORMALIZE_DEPTH) return;
  if (field.type === "object") {
    const { properties, required } = objectParts(target, n, targetPointer);
    if (properties.size > 0) {
      field.fields = [...properties].map(([k, v]) => normalizeField(k, v, required.has(k), n, depth + 1));
    } else if (isRecord(target.additionalProperties)) {
      field.type = "map";
      field.items = normalizeField("values", { schema: target.additionalProperties, pointer: `${targetPointer}/additionalProperties` }, true, n, depth + 1);
    }
  } else if (field.type === "array") {
    const items = arrayItems(target, n, targetPointer, depth);
    if (items) field.items = items;
  }
}

/**
 * The element type of an array: `items` as one schema; a tuple (`prefixItems` in 2020-12,
 * `items` as a list before it) with one position is that position, with more a union whose
 * `fields` are the positions, in order.
 */
function arrayItems(target: Record<string, unknown>, n: Normalizer, pointer: string, depth: number): NormalizedField | undefined {
  if (isRecord(target.items)) return normalizeField("items", { schema: target.items, pointer: `${pointer}/items` }, true, n, depth + 1);
  const keyword = Array.isArray(target.prefixItems) ? "prefixItems" : Array.isArray(target.items) ? "items" : undefined;
  if (keyword === undefined) return undefined;
  const positions = (target[keyword] as unknown[]).map((s, i) => normalizeField(String(i), { schema: s, pointer: `${pointer}/${keyword}/${i}` }, true, n, depth + 1));
  if (positions.length === 0) return undefined;
  if (positions.length === 1) {
    positions[0].name = "items";
    return positions[0];
  }
  return { name: "items", type: "union", physicalType: "tuple", required: true, fields: positions };
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

interface ParseContext {
  issues: Issues;
  definitions: Definitions<object>;
  limits: ParseLimits;
  /** Fields described so far, across every model of the specification. */
  fields: number;
}

function parseOne(schema: unknown, path: Path, index: number, c: ParseContext): NormalizedModel | undefined {
  const { issues } = c;
  if (!isRecord(schema)) {
    issues.add(path, `a JSON Schema must be an object, not ${kindOf(schema)}`);
    return undefined;
  }
  const before = issues.count;
  if (valueNestsDeeperThan(schema, MAX_DEPTH)) {
    issues.add(path, `the schema is nested more than ${MAX_DEPTH} levels deep`);
    return undefined;
  }
  const draft = draftOf(schema);
  if (draft === undefined) {
    const known = DRAFTS.map((d) => `"${d.uri}"`).join(", ");
    issues.add([...path, "$schema"], `unsupported $schema ${quote(schema.$schema)}; Steward reads ${known}`);
    return undefined;
  }
  metaViolations(schema, metaValidate(schema, draft), path, issues);
  const external = checkRefsAndPatterns(schema, path, issues);
  if (issues.count === before) {
    const error = compileError(schema, draft);
    if (error !== undefined) {
      const ref = external.find(([r]) => error.includes(r));
      issues.add(ref ? ref[1] : path, ref ? `cannot resolve reference ${quote(ref[0])}` : error);
    }
  }

  const name = modelName(schema, index);
  const n: Normalizer = { root: schema, model: name, definitions: c.definitions, limits: c.limits, fields: c.fields };
  const { schema: resolvedRoot, pointer } = deref(schema, n, "#");
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

  // The model is its root's first use: `{"$ref": "#"}` inside it refers to the model.
  const described: NormalizedField = { name, type: "object", physicalType: "object", required: true };
  c.definitions.begin(resolvedRoot, `${name}${pointer}`, described);
  const { properties, required } = objectParts(resolvedRoot, n, pointer);
  try {
    described.fields = [...properties].map(([k, v]) => normalizeField(k, v, required.has(k), n, 1));
  } finally {
    c.fields = n.fields;
  }
  c.definitions.end(resolvedRoot);
  const model: NormalizedModel = { name, kind: "object", fields: described.fields };
  const description = typeof schema.description === "string" ? schema.description : resolvedRoot.description;
  if (typeof description === "string") model.description = description;
  return model;
}

export function parseJsonSchemaSource(source: SpecSource, base: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): ParseResult {
  if (looksLikeAvro(source.value)) return parseAvroSource(source, base);
  const c: ParseContext = { issues: new Issues(), definitions: new Definitions<object>(), limits, fields: 0 };
  const { issues } = c;
  const models: NormalizedModel[] = [];
  const root = source.value;
  if (Array.isArray(root) && root.length === 0) issues.add([], "at least one JSON Schema is required");
  const items: Array<[unknown, Path]> = Array.isArray(root) ? root.map((s, i) => [s, [i]]) : [[root, []]];
  const seen = new Map<string, number>();
  for (const [i, [schema, path]] of items.entries()) {
    let model: NormalizedModel | undefined;
    try {
      model = parseOne(schema, path, i, c);
    } catch (error) {
      if (!(error instanceof FieldLimitExceeded)) throw error;
      issues.add(path, error.message);
      break;
    }
    if (!model) continue;
    const first = seen.get(model.name);
    if (first !== undefined) {
      const s = schema as Record<string, unknown>;
      issues.add([...path, typeof s.title === "string" ? "title" : "$id"], `duplicate model name ${quote(model.name)} (also [${first}])`);
    } else {
      seen.set(model.name, i);
    }
    models.push(model);
  }
  return finish("jsonschema", base, issues, source, models, c.definitions.list());
}

export const jsonschemaParser: SchemaParser = loadingParser("jsonschema", loadJson, parseJsonSchemaSource);
