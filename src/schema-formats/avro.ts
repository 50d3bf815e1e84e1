/**
 * Avro schemas: one record or an array of records (later records may name earlier ones),
 * as JSON text or a value. Our own walk reports every problem with a precise path; `avsc`
 * then checks whatever the walk does not know about (it stops at its first error).
 */
import avsc from "avsc";
import type { LogicalType, NormalizedField, NormalizedModel, ParseResult, SchemaParser } from "./types.js";
import { Definitions } from "./definitions.js";
import { Issues, MAX_DEPTH, SpecSource, finish, hasOwn, isRecord, kindOf, loadingParser, loadJson, quote } from "./text.js";
import { valueNestsDeeperThan } from "../platform/json-depth.js";
import type { Path } from "./text.js";

const PRIMITIVES = new Set(["null", "boolean", "int", "long", "float", "double", "bytes", "string"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ORDERS = new Set(["ascending", "descending", "ignore"]);
const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** True for a record (`"type": "record"` with `fields`) or a non-empty array of them. */
export function looksLikeAvro(value: unknown): boolean {
  const isAvroRecord = (v: unknown) => isRecord(v) && v.type === "record" && Array.isArray(v.fields);
  return isAvroRecord(value) || (Array.isArray(value) && value.length > 0 && value.every(isAvroRecord));
}

interface Walk {
  issues: Issues;
  /** Named types by full name, in definition order. */
  named: Map<string, Record<string, unknown>>;
}

function fullName(name: string, namespace: string): string {
  return name.includes(".") || namespace === "" ? name : `${namespace}.${name}`;
}

/** The namespace that names inside a named type resolve against. */
function innerNamespace(name: string, schema: Record<string, unknown>, enclosing: string): string {
  if (name.includes(".")) return name.slice(0, name.lastIndexOf("."));
  return typeof schema.namespace === "string" ? schema.namespace : enclosing;
}

/** Looks a type name up the way avsc does: qualified by the current namespace unless dotted. */
function lookup(name: string, namespace: string, w: Walk): Record<string, unknown> | undefined {
  return w.named.get(fullName(name, namespace));
}

function checkName(schema: Record<string, unknown>, path: Path, namespace: string, w: Walk): string | undefined {
  const name = schema.name;
  if (typeof name !== "string") {
    w.issues.add([...path, "name"], name === undefined ? `a ${String(schema.type)} needs a name` : "must be a string");
    return undefined;
  }
  if (!name.split(".").every((part) => NAME.test(part))) {
    w.issues.add([...path, "name"], `invalid name ${quote(name)}: use letters, digits and underscores, not starting with a digit`);
    return undefined;
  }
  if (schema.namespace !== undefined && schema.namespace !== null) {
    if (typeof schema.namespace !== "string" || (schema.namespace !== "" && !schema.namespace.split(".").every((p) => NAME.test(p)))) {
      w.issues.add([...path, "namespace"], `invalid namespace ${quote(schema.namespace)}`);
    }
  }
  const ns = typeof schema.namespace === "string" ? schema.namespace : namespace;
  const full = fullName(name, ns);
  if (PRIMITIVES.has(full)) {
    w.issues.add([...path, "name"], `${quote(name)} is a primitive type name and cannot name a ${String(schema.type)}`);
    return undefined;
  }
  if (w.named.has(full)) {
    w.issues.add([...path, "name"], `the type ${quote(full)} is already defined`);
    return undefined;
  }
  w.named.set(full, schema);
  return full;
}

function isNonNegativeInteger(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

function checkDecimal(schema: Record<string, unknown>, path: Path, w: Walk): void {
  const { precision, scale } = schema;
  if (!isNonNegativeInteger(precision) || precision === 0) {
    w.issues.add([...path, "precision"], "a decimal needs a precision, an integer greater than 0");
  }
  if (scale !== undefined && (!isNonNegativeInteger(scale) || (isNonNegativeInteger(precision) && scale > precision))) {
    w.issues.add([...path, "scale"], "the scale of a decimal must be an integer between 0 and its precision");
  }
}

/** The key under which Avro forbids two branches of one union. */
function branchKey(branch: unknown, namespace: string): string | undefined {
  if (typeof branch === "string") return PRIMITIVES.has(branch) ? branch : fullName(branch, namespace);
  if (!isRecord(branch) || typeof branch.type !== "string") return undefined;
  if (["record", "error", "enum", "fixed"].includes(branch.type) && typeof branch.name === "string") {
    const ns = typeof branch.namespace === "string" ? branch.namespace : namespace;
    return fullName(branch.name, ns);
  }
  return branch.type;
}

function checkType(schema: unknown, path: Path, namespace: string, w: Walk, depth: number): void {
  if (depth > MAX_DEPTH) {
    w.issues.add(path, `types are nested more than ${MAX_DEPTH} levels deep`);
    return;
  }
  if (typeof schema === "string") {
    if (!PRIMITIVES.has(schema) && !lookup(schema, namespace, w)) {
      w.issues.add(path, `unknown type ${quote(fullName(schema, namespace))}`);
    }
    return;
  }
  if (Array.isArray(schema)) {
    if (schema.length === 0) w.issues.add(path, "a union needs at least one branch");
    const keys = new Map<string, number>();
    schema.forEach((branch, i) => {
      if (Array.isArray(branch)) {
        w.issues.add([...path, i], "a union cannot directly contain another union");
        return;
      }
      const key = branchKey(branch, namespace);
      if (key !== undefined) {
        if (keys.has(key)) w.issues.add([...path, i], `duplicate union branch ${quote(key)} (also [${keys.get(key)}])`);
        else keys.set(key, i);
      }
      checkType(branch, [...path, i], namespace, w, depth + 1);
    });
    return;
  }
  if (!isRecord(schema)) {
    w.issues.add(path, `a type must be a type name, a type object or a union array, not ${kindOf(schema)}`);
    return;
  }
  const type = schema.type;
  if (typeof type !== "string") {
    w.issues.add([...path, "type"], type === undefined ? "type is required" : `must be a type name, not ${kindOf(type)}`);
    return;
  }
  switch (type) {
    case "record":
    case "error": {
      const full = checkName(schema, path, namespace, w);
      const inner = innerNamespace(full ?? "", schema, namespace);
      checkFields(schema, path, inner, w, depth);
      break;
    }
    case "enum": {
      checkName(schema, path, namespace, w);
      const symbols = schema.symbols;
      if (!Array.isArray(symbols) || symbols.length === 0) {
        w.issues.add([...path, "symbols"], "an enum needs a non-empty list of symbols");
        break;
      }
      const seen = new Set<string>();
      symbols.forEach((symbol, i) => {
        if (typeof symbol !== "string" || !NAME.test(symbol)) w.issues.add([...path, "symbols", i], `invalid symbol ${quote(symbol)}`);
        else if (seen.has(symbol)) w.issues.add([...path, "symbols", i], `duplicate symbol ${quote(symbol)}`);
        else seen.add(symbol);
      });
      if (schema.default !== undefined && !(typeof schema.default === "string" && seen.has(schema.default))) {
        w.issues.add([...path, "default"], `the default ${quote(schema.default)} is not one of the symbols`);
      }
      break;
    }
    case "fixed":
      checkName(schema, path, namespace, w);
      if (!isNonNegativeInteger(schema.size)) w.issues.add([...path, "size"], "a fixed type needs a size, a non-negative integer");
      if (schema.logicalType === "decimal") checkDecimal(schema, path, w);
      break;
    case "array":
      if (schema.items === undefined) w.issues.add([...path, "items"], "an array needs items");
      else checkType(schema.items, [...path, "items"], namespace, w, depth + 1);
      break;
    case "map":
      if (schema.values === undefined) w.issues.add([...path, "values"], "a map needs values");
      else checkType(schema.values, [...path, "values"], namespace, w, depth + 1);
      break;
    default:
      if (PRIMITIVES.has(type)) {
        if (schema.logicalType === "decimal" && type === "bytes") checkDecimal(schema, path, w);
      } else {
        const hint = lookup(type, namespace, w) ? `; refer to the named type ${quote(type)} by its name alone` : "";
        w.issues.add([...path, "type"], `unknown type ${quote(type)}${hint}`);
      }
  }
}

function checkFields(record: Record<string, unknown>, path: Path, namespace: string, w: Walk, depth: number): void {
  const fields = record.fields;
  if (!Array.isArray(fields)) {
    w.issues.add([...path, "fields"], fields === undefined ? "a record needs fields" : `fields must be a list, not ${kindOf(fields)}`);
    return;
  }
  const seen = new Map<string, number>();
  fields.forEach((field, i) => {
    const fp = [...path, "fields", i];
    if (!isRecord(field)) {
      w.issues.add(fp, `a field must be an object, not ${kindOf(field)}`);
      return;
    }
    if (typeof field.name !== "string" || !NAME.test(field.name)) {
      w.issues.add([...fp, "name"], field.name === undefined ? "a field needs a name" : `invalid field name ${quote(field.name)}`);
    } else if (seen.has(field.name)) {
      w.issues.add([...fp, "name"], `duplicate field name ${quote(field.name)} (also fields[${seen.get(field.name)}])`);
    } else {
      seen.set(field.name, i);
    }
    if (field.doc !== undefined && typeof field.doc !== "string") w.issues.add([...fp, "doc"], "must be a string");
    if (field.order !== undefined && !(typeof field.order === "string" && ORDERS.has(field.order))) {
      w.issues.add([...fp, "order"], "order must be ascending, descending or ignore");
    }
    if (!hasOwn(field, "type")) {
      w.issues.add([...fp, "type"], "a field needs a type");
      return;
    }
    const before = w.issues.count;
    checkType(field.type, [...fp, "type"], namespace, w, depth + 1);
    if (hasOwn(field, "default") && w.issues.count === before) {
      const problem = defaultProblem(field.type, field.default, namespace, w, 0);
      if (problem) w.issues.add([...fp, "default"], problem);
    }
  });
}

/** Why `value` is not a valid default for `schema` (Avro's JSON encoding of defaults), if it is not. */
function defaultProblem(schema: unknown, value: unknown, namespace: string, w: Walk, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const bad = (what: string) => `the default ${quote(value)} is not ${what}`;
  if (Array.isArray(schema)) {
    const first = schema[0];
    const problem = defaultProblem(first, value, namespace, w, depth + 1);
    return problem ? `${problem} (a union's default must match its first branch)` : undefined;
  }
  let type: unknown = schema;
  let def: Record<string, unknown> | undefined;
  if (typeof schema === "string" && !PRIMITIVES.has(schema)) {
    def = lookup(schema, namespace, w);
    type = def?.type;
    if (def) namespace = innerNamespace(fullName(String(def.name), typeof def.namespace === "string" ? def.namespace : namespace), def, namespace);
  } else if (isRecord(schema)) {
    def = schema;
    type = schema.type;
    if (typeof schema.name === "string") namespace = innerNamespace(schema.name, schema, namespace);
  }
  switch (type) {
    case "null":
      return value === null ? undefined : bad("null");
    case "boolean":
      return typeof value === "boolean" ? undefined : bad("a boolean");
    case "int":
      return Number.isInteger(value) && (value as number) >= INT_MIN && (value as number) <= INT_MAX ? undefined : bad("an int");
    case "long":
      return Number.isInteger(value) ? undefined : bad("a long");
    case "float":
    case "double":
      return typeof value === "number" ? undefined : bad("a number");
    case "bytes":
    case "string":
      return typeof value === "string" ? undefined : bad("a string");
    case "fixed":
      return typeof value === "string" && value.length === def?.size ? undefined : bad(`a string of ${String(def?.size)} characters`);
    case "enum":
      return typeof value === "string" && Array.isArray(def?.symbols) && def.symbols.includes(value) ? undefined : bad("one of the symbols");
    case "array":
      if (!Array.isArray(value)) return bad("an array");
      for (const item of value) {
        const p = defaultProblem(def?.items, item, namespace, w, depth + 1);
        if (p) return p;
      }
      return undefined;
    case "map":
      if (!isRecord(value)) return bad("an object");
      for (const item of Object.values(value)) {
        const p = defaultProblem(def?.values, item, namespace, w, depth + 1);
        if (p) return p;
      }
      return undefined;
    case "record":
    case "error": {
      if (!isRecord(value)) return bad("an object");
      if (!Array.isArray(def?.fields)) return undefined;
      for (const f of def.fields) {
        if (!isRecord(f) || typeof f.name !== "string") continue;
        if (hasOwn(value, f.name)) {
          const p = defaultProblem(f.type, value[f.name], namespace, w, depth + 1);
          if (p) return p;
        } else if (!hasOwn(f, "default")) {
          return `the default ${quote(value)} has no value for the field ${quote(f.name)}`;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Normalization

const LOGICAL: Record<string, LogicalType> = {
  date: "date",
  "time-millis": "time",
  "time-micros": "time",
  "timestamp-millis": "timestamp",
  "timestamp-micros": "timestamp",
  "timestamp-nanos": "timestamp",
  "local-timestamp-millis": "timestamp",
  "local-timestamp-micros": "timestamp",
  "local-timestamp-nanos": "timestamp",
  decimal: "number",
  uuid: "string",
  duration: "interval",
};

const PRIMITIVE_LOGICAL: Record<string, LogicalType> = {
  null: "null",
  boolean: "boolean",
  int: "integer",
  long: "integer",
  float: "number",
  double: "number",
  bytes: "bytes",
  string: "string",
};

/** A compact text rendering: `string`, `int(date)`, `array<long>`, `["null","Address"]`. */
export function renderAvroType(schema: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) return "...";
  if (typeof schema === "string") return schema;
  if (Array.isArray(schema)) return `[${schema.map((b) => JSON.stringify(renderAvroType(b, depth + 1))).join(",")}]`;
  if (!isRecord(schema)) return "";
  const type = String(schema.type);
  if (type === "array") return `array<${renderAvroType(schema.items, depth + 1)}>`;
  if (type === "map") return `map<${renderAvroType(schema.values, depth + 1)}>`;
  const base = ["record", "error", "enum", "fixed"].includes(type) && typeof schema.name === "string" ? schema.name : type;
  if (typeof schema.logicalType !== "string") return base;
  if (schema.logicalType === "decimal") return `${base}(decimal(${String(schema.precision)},${String(schema.scale ?? 0)}))`;
  return `${base}(${schema.logicalType})`;
}

interface Normalize {
  named: Map<string, Record<string, unknown>>;
  /** Named types by full name: described at their first use, referred to at every other. */
  definitions: Definitions<string>;
}

function normalizeType(name: string, schema: unknown, namespace: string, n: Normalize, depth: number): NormalizedField {
  const field: NormalizedField = { name, type: "unknown", physicalType: renderAvroType(schema), required: true };
  if (depth > MAX_DEPTH) return field;
  if (Array.isArray(schema)) {
    const nonNull = schema.filter((b) => b !== "null" && !(isRecord(b) && b.type === "null"));
    const nullable = nonNull.length < schema.length;
    if (nonNull.length === 1) {
      // The inner field itself, not a copy: it may be a type's first use, which a definition
      // takes its description from at the end.
      const inner = normalizeType(name, nonNull[0], namespace, n, depth + 1);
      inner.physicalType = field.physicalType;
      inner.required = !nullable;
      return inner;
    }
    field.type = nonNull.length === 0 ? "null" : "union";
    field.required = !nullable;
    return field;
  }
  let def: Record<string, unknown> | undefined;
  let full: string | undefined;
  if (typeof schema === "string") {
    if (PRIMITIVES.has(schema)) {
      field.type = PRIMITIVE_LOGICAL[schema];
      return field;
    }
    full = fullName(schema, namespace);
    def = n.named.get(full);
  } else if (isRecord(schema)) {
    def = schema;
    if (typeof schema.name === "string") full = fullName(schema.name, typeof schema.namespace === "string" ? schema.namespace : namespace);
  }
  if (!def) return field;
  const type = String(def.type);
  const logical = typeof def.logicalType === "string" ? LOGICAL[def.logicalType] : undefined;
  switch (type) {
    case "record":
    case "error": {
      field.type = "object";
      if (full === undefined) return field;
      if (n.definitions.has(full)) return n.definitions.refer(full, field);
      n.definitions.begin(full, full, field, renderAvroType(def));
      const inner = innerNamespace(full, def, namespace);
      field.fields = (def.fields as unknown[]).filter(isRecord).map((f) => normalizeAvroField(f, inner, n, depth + 1));
      return field;
    }
    case "enum":
      field.type = "enum";
      if (full !== undefined && n.definitions.has(full)) return n.definitions.refer(full, field);
      if (full !== undefined) n.definitions.begin(full, full, field, renderAvroType(def));
      field.symbols = (def.symbols as unknown[]).filter((s): s is string => typeof s === "string");
      return field;
    case "fixed":
      field.type = logical === "number" || logical === "interval" ? logical : "bytes";
      // A fixed holds exactly `size` bytes, and Avro resolves a fixed only against one of the same
      // size: its size is its length, so a change either way is compared as a length change.
      if (isNonNegativeInteger(def.size)) field.minLength = field.maxLength = def.size;
      return field;
    case "array":
      field.type = "array";
      field.items = normalizeType("items", def.items, namespace, n, depth + 1);
      return field;
    case "map":
      field.type = "map";
      field.items = normalizeType("values", def.values, namespace, n, depth + 1);
      return field;
    default: {
      const base = PRIMITIVE_LOGICAL[type] ?? "unknown";
      // Avro ignores a logical type on the wrong underlying type; so do we.
      const fits =
        logical === "date" || logical === "time" ? type === "int" || type === "long"
        : logical === "timestamp" ? type === "long"
        : logical === "number" ? type === "bytes"
        : logical === "string" ? type === "string"
        : false;
      field.type = logical && fits ? logical : base;
      return field;
    }
  }
}

function normalizeAvroField(f: Record<string, unknown>, namespace: string, n: Normalize, depth: number): NormalizedField {
  const field = normalizeType(String(f.name), f.type, namespace, n, depth);
  if (typeof f.doc === "string") field.description = f.doc;
  return field;
}

// ---------------------------------------------------------------------------------------------

/** avsc's verdict on one root record, given the records before it in `registry`. */
function avscError(record: unknown, registry: Record<string, unknown>): string | undefined {
  try {
    avsc.Type.forSchema(record as avsc.Schema, { registry: registry as never });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export function parseAvroSource(source: SpecSource, base: string): ParseResult {
  const issues = new Issues();
  const root = source.value;
  const w: Walk = { issues, named: new Map() };
  if (Array.isArray(root) && root.length === 0) issues.add([], "at least one Avro record is required");
  const items: Array<[unknown, Path]> = Array.isArray(root) ? root.map((r, i) => [r, [i]]) : [[root, []]];
  const records: Array<Record<string, unknown>> = [];
  const registry: Record<string, unknown> = {};
  let earlierProblems = false;
  for (const [record, path] of items) {
    const before = issues.count;
    if (!isRecord(record) || record.type !== "record") {
      issues.add(isRecord(record) ? [...path, "type"] : path, `each model must be an Avro record ("type": "record"), not ${isRecord(record) ? quote(record.type) : kindOf(record)}`);
    } else if (valueNestsDeeperThan(record, MAX_DEPTH)) {
      issues.add(path, `the record is nested more than ${MAX_DEPTH} levels deep`);
    } else {
      checkType(record, path, "", w, 0);
      if (issues.count === before) {
        const error = avscError(record, registry);
        // After an earlier broken record, avsc's complaint may only be about that one.
        if (error !== undefined && !earlierProblems) issues.add(path, `invalid Avro schema: ${error}`);
        records.push(record);
      }
    }
    if (issues.count !== before) earlierProblems = true;
  }
  const models: NormalizedModel[] = [];
  const definitions = new Definitions<string>();
  if (issues.count === 0) {
    const n: Normalize = { named: w.named, definitions };
    for (const record of records) {
      const full = fullName(String(record.name), typeof record.namespace === "string" ? record.namespace : "");
      // The model is the record's first use: a later record, or the record itself, refers to it.
      const described: NormalizedField = { name: full, type: "object", physicalType: renderAvroType(record), required: true };
      definitions.begin(full, full, described, renderAvroType(record));
      const inner = innerNamespace(full, record, "");
      described.fields = (record.fields as unknown[]).filter(isRecord).map((f) => normalizeAvroField(f, inner, n, 1));
      const model: NormalizedModel = { name: String(record.name), kind: "record", fields: described.fields };
      if (typeof record.doc === "string") model.description = record.doc;
      models.push(model);
    }
  }
  return finish("avro", base, issues, source, models, definitions.list());
}

export const avroParser: SchemaParser = loadingParser("avro", loadJson, parseAvroSource);
