/**
 * BigQuery table resources (as returned by `tables.get`): one table or an array of them; or a
 * bare field list as `bq show --schema` prints it (or `{"fields": [...]}`), which is one table
 * without a name. JSON text or a value.
 */
import type { LogicalType, ModelKind, NormalizedField, NormalizedModel, ParseResult, SchemaParser } from "./types.js";
import { Issues, SpecSource, finish, isRecord, kindOf, loadingParser, loadJson, quote } from "./text.js";
import type { Path } from "./text.js";

const FIELD_TYPES: Record<string, LogicalType> = {
  STRING: "string",
  BYTES: "bytes",
  INTEGER: "integer",
  INT64: "integer",
  FLOAT: "number",
  FLOAT64: "number",
  NUMERIC: "number",
  DECIMAL: "number",
  BIGNUMERIC: "number",
  BIGDECIMAL: "number",
  BOOLEAN: "boolean",
  BOOL: "boolean",
  TIMESTAMP: "timestamp",
  DATE: "date",
  TIME: "time",
  DATETIME: "timestamp",
  GEOGRAPHY: "geography",
  JSON: "json",
  RECORD: "object",
  STRUCT: "object",
  RANGE: "range",
  INTERVAL: "interval",
};

const TABLE_KINDS: Record<string, ModelKind> = {
  TABLE: "table",
  VIEW: "view",
  MATERIALIZED_VIEW: "materialized_view",
  EXTERNAL: "table",
  SNAPSHOT: "table",
};

const MODES = new Set(["NULLABLE", "REQUIRED", "REPEATED"]);
const RANGE_ELEMENT_TYPES = new Set(["DATE", "DATETIME", "TIMESTAMP"]);
/**
 * BigQuery's flexible column names: letters, marks and digits of any language, connector
 * punctuation (`_`), dashes, spaces and `& % = + : ' < > # |`, anywhere in the name.
 */
const FIELD_NAME = /^[\p{L}\p{M}\p{N}\p{Pc}\p{Pd}\p{Zs}&%=+:'<>#|]+$/u;
/** Prefixes BigQuery keeps for its own pseudo-columns (compared case-insensitively). */
const RESERVED_PREFIXES = ["_TABLE_", "_FILE_", "_PARTITION", "_ROW_TIMESTAMP", "__ROOT__", "_COLON_"];
const MAX_FIELD_NAME = 300;
/** BigQuery allows at most 15 levels of nested RECORDs. */
const MAX_RECORD_DEPTH = 15;

/** BigQuery's JSON API sends int64 values as strings; both spellings are accepted. */
function int64(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^-?\d{1,18}$/.test(value)) return Number(value);
  return undefined;
}

/** Checks `precision`/`scale` of a NUMERIC or BIGNUMERIC column against BigQuery's limits. */
function checkDecimal(field: Record<string, unknown>, canonical: string, path: Path, issues: Issues): void {
  const big = canonical === "BIGNUMERIC";
  const maxScale = big ? 38 : 9;
  const maxIntegerDigits = big ? 38 : 29;
  const hasPrecision = field.precision !== undefined && field.precision !== null;
  const hasScale = field.scale !== undefined && field.scale !== null;
  const precision = hasPrecision ? int64(field.precision) : undefined;
  const scale = hasScale ? int64(field.scale) : 0;
  if (hasPrecision && precision === undefined) issues.add([...path, "precision"], "must be an integer");
  if (hasScale && scale === undefined) issues.add([...path, "scale"], "must be an integer");
  if (hasScale && !hasPrecision) {
    issues.add([...path, "scale"], "scale cannot be given without precision");
    return;
  }
  if (precision === undefined || scale === undefined) return;
  let scaleOk = true;
  if (scale < 0 || scale > maxScale) {
    issues.add([...path, "scale"], `scale of ${canonical} must be between 0 and ${maxScale}`);
    scaleOk = false;
  }
  // BigQuery: max(1, S) <= P <= S + 29 (NUMERIC) or S + 38 (BIGNUMERIC).
  if (scaleOk && (precision < Math.max(1, scale) || precision > scale + maxIntegerDigits)) {
    issues.add(
      [...path, "precision"],
      `precision of ${canonical}(P, ${scale}) must be between ${Math.max(1, scale)} and ${scale + maxIntegerDigits}`,
    );
  }
}

function parseFields(value: unknown, path: Path, depth: number, issues: Issues): NormalizedField[] {
  const out: NormalizedField[] = [];
  if (!Array.isArray(value)) {
    issues.add(path, value === undefined ? "fields is required" : `fields must be a list, not ${kindOf(value)}`);
    return out;
  }
  const seen = new Map<string, number>();
  for (let i = 0; i < value.length; i++) {
    const field = parseField(value[i], [...path, i], depth, issues);
    if (!field) continue;
    if (field.name !== "") {
      const key = field.name.toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) {
        issues.add([...path, i, "name"], `duplicate field name ${quote(field.name)} (names are case-insensitive; also fields[${first}])`);
      } else {
        seen.set(key, i);
      }
    }
    out.push(field);
  }
  return out;
}

/** `depth` is the number of RECORD levels this field sits in (0 for a top-level column). */
function parseField(field: unknown, path: Path, depth: number, issues: Issues): NormalizedField | undefined {
  if (!isRecord(field)) {
    issues.add(path, `a field must be an object, not ${kindOf(field)}`);
    return undefined;
  }
  let name = "";
  if (typeof field.name !== "string") {
    issues.add([...path, "name"], field.name === undefined ? "a field needs a name" : "must be a string");
  } else if (!FIELD_NAME.test(field.name) || field.name.length > MAX_FIELD_NAME) {
    issues.add(
      [...path, "name"],
      `invalid column name ${quote(field.name)}: use letters, digits, underscores, dashes, spaces or & % = + : ' < > # |, at most ${MAX_FIELD_NAME} characters`,
    );
  } else if (RESERVED_PREFIXES.some((prefix) => (field.name as string).toUpperCase().startsWith(prefix))) {
    issues.add([...path, "name"], `invalid column name ${quote(field.name)}: BigQuery reserves names starting with ${RESERVED_PREFIXES.join(", ")}`);
  } else {
    name = field.name;
  }

  const typeName = typeof field.type === "string" ? field.type : undefined;
  const canonical = typeName?.toUpperCase();
  const logical = canonical !== undefined ? FIELD_TYPES[canonical] : undefined;
  if (field.type === undefined) issues.add([...path, "type"], "a field needs a type");
  else if (logical === undefined) {
    issues.add([...path, "type"], `unknown type ${quote(field.type)}; expected one of ${Object.keys(FIELD_TYPES).join(", ")}`);
  }

  let mode = "NULLABLE";
  if (field.mode !== undefined && field.mode !== null) {
    const m = typeof field.mode === "string" ? field.mode.toUpperCase() : undefined;
    if (m === undefined || !MODES.has(m)) issues.add([...path, "mode"], `mode must be NULLABLE, REQUIRED or REPEATED, not ${quote(field.mode)}`);
    else mode = m;
  }
  if (field.description !== undefined && field.description !== null && typeof field.description !== "string") {
    issues.add([...path, "description"], `must be a string, not ${kindOf(field.description)}`);
  }

  const isRecordType = logical === "object";
  let nested: NormalizedField[] | undefined;
  if (isRecordType) {
    if (depth + 1 > MAX_RECORD_DEPTH) {
      issues.add([...path, "type"], `RECORD fields can be nested at most ${MAX_RECORD_DEPTH} levels deep`);
    } else if (Array.isArray(field.fields) && field.fields.length === 0) {
      issues.add([...path, "fields"], `a ${canonical} field needs at least one nested field`);
    } else {
      nested = parseFields(field.fields, [...path, "fields"], depth + 1, issues);
    }
  } else if (field.fields !== undefined && field.fields !== null && logical !== undefined) {
    issues.add([...path, "fields"], `only RECORD/STRUCT fields can have nested fields, not ${canonical}`);
  }

  let rangeElement: string | undefined;
  if (logical === "range") {
    const ret = field.rangeElementType;
    if (!isRecord(ret)) {
      issues.add([...path, "rangeElementType"], "a RANGE field needs rangeElementType.type (DATE, DATETIME or TIMESTAMP)");
    } else if (typeof ret.type !== "string" || !RANGE_ELEMENT_TYPES.has(ret.type.toUpperCase())) {
      issues.add([...path, "rangeElementType", "type"], `must be DATE, DATETIME or TIMESTAMP, not ${quote(ret.type)}`);
    } else {
      rangeElement = ret.type;
    }
  } else if (field.rangeElementType !== undefined && field.rangeElementType !== null && logical !== undefined) {
    issues.add([...path, "rangeElementType"], `only RANGE fields have a rangeElementType, not ${canonical}`);
  }

  if (field.maxLength !== undefined && field.maxLength !== null) {
    const maxLength = int64(field.maxLength);
    if (logical !== undefined && logical !== "string" && logical !== "bytes") {
      issues.add([...path, "maxLength"], `only STRING and BYTES fields have a maxLength, not ${canonical}`);
    } else if (maxLength === undefined || maxLength < 1) {
      issues.add([...path, "maxLength"], "must be a positive integer");
    }
  }
  const decimalCanonical = canonical === "DECIMAL" ? "NUMERIC" : canonical === "BIGDECIMAL" ? "BIGNUMERIC" : canonical;
  if (decimalCanonical === "NUMERIC" || decimalCanonical === "BIGNUMERIC") {
    checkDecimal(field, decimalCanonical, path, issues);
  } else if (logical !== undefined) {
    for (const key of ["precision", "scale"]) {
      if (field[key] !== undefined && field[key] !== null) {
        issues.add([...path, key], `only NUMERIC and BIGNUMERIC fields have a ${key}, not ${canonical}`);
      }
    }
  }

  const physical = rangeElement !== undefined ? `${typeName}<${rangeElement}>` : (typeName ?? "");
  const element: NormalizedField = {
    name,
    type: logical ?? "unknown",
    physicalType: physical,
    required: mode === "REQUIRED",
  };
  if (nested) element.fields = nested;
  // Limits the diff of two versions compares (a shorter maxLength or a smaller precision breaks).
  for (const key of ["maxLength", "precision", "scale"] as const) {
    const limit = field[key] === undefined || field[key] === null ? undefined : int64(field[key]);
    if (limit !== undefined) element[key] = limit;
  }
  const description = typeof field.description === "string" ? field.description : undefined;
  if (mode !== "REPEATED") {
    if (description !== undefined) element.description = description;
    return element;
  }
  // A REPEATED column is an ARRAY of its type; the element carries the nested fields.
  const array: NormalizedField = {
    name,
    type: "array",
    physicalType: `ARRAY<${physical}>`,
    required: false,
    items: { ...element, name: "items", required: true },
  };
  if (description !== undefined) array.description = description;
  return array;
}

function parseTable(table: unknown, path: Path, issues: Issues): NormalizedModel | undefined {
  if (!isRecord(table)) {
    issues.add(path, `a table must be an object, not ${kindOf(table)}`);
    return undefined;
  }
  let name = "";
  const ref = table.tableReference;
  if (!isRecord(ref)) {
    issues.add([...path, "tableReference"], ref === undefined ? "tableReference is required" : "must be an object");
  } else {
    for (const key of ["projectId", "datasetId", "tableId"]) {
      const v = ref[key];
      if (typeof v !== "string" || v.trim() === "") {
        issues.add([...path, "tableReference", key], v === undefined ? `${key} is required` : "must be a non-empty string");
      }
    }
    if (typeof ref.tableId === "string") name = ref.tableId;
  }
  let kind: ModelKind = "table";
  if (table.type !== undefined && table.type !== null) {
    const k = typeof table.type === "string" ? TABLE_KINDS[table.type.toUpperCase()] : undefined;
    if (!k) issues.add([...path, "type"], `table type must be one of ${Object.keys(TABLE_KINDS).join(", ")}, not ${quote(table.type)}`);
    else kind = k;
  }
  if (table.description !== undefined && table.description !== null && typeof table.description !== "string") {
    issues.add([...path, "description"], `must be a string, not ${kindOf(table.description)}`);
  }
  let fields: NormalizedField[] = [];
  if (!isRecord(table.schema)) {
    issues.add([...path, "schema"], table.schema === undefined ? "schema with fields is required" : "must be an object");
  } else {
    fields = parseFields(table.schema.fields, [...path, "schema", "fields"], 0, issues);
  }
  const model: NormalizedModel = { name, kind, fields };
  if (typeof table.description === "string") model.description = table.description;
  return model;
}

/** A field list on its own: `[{name, type, ...}]` (`bq show --schema`) or `{fields: [...]}`. */
function bareFieldList(root: unknown): { fields: unknown; path: Path } | undefined {
  const isTable = (v: Record<string, unknown>) => v.tableReference !== undefined || v.schema !== undefined;
  if (Array.isArray(root) && root.length > 0 && isRecord(root[0]) && !isTable(root[0]) && root[0].name !== undefined) {
    return { fields: root, path: [] };
  }
  if (isRecord(root) && !isTable(root) && Array.isArray(root.fields)) return { fields: root.fields, path: ["fields"] };
  return undefined;
}

export function parseBigQuerySource(source: SpecSource, base: string): ParseResult {
  const issues = new Issues();
  const models: NormalizedModel[] = [];
  const root = source.value;
  const bare = bareFieldList(root);
  if (bare) {
    models.push({ name: "table", kind: "table", fields: parseFields(bare.fields, bare.path, 0, issues) });
    return finish("bigquery", base, issues, source, models);
  }
  const tables: Array<[unknown, Path]> = Array.isArray(root) ? root.map((t, i) => [t, [i]]) : [[root, []]];
  if (Array.isArray(root) && root.length === 0) issues.add([], "at least one table is required");
  const seen = new Map<string, string>();
  for (const [table, path] of tables) {
    const model = parseTable(table, path, issues);
    if (!model) continue;
    const ref = (table as Record<string, unknown>).tableReference as Record<string, unknown>;
    if (model.name !== "") {
      const key = `${String(ref.projectId)}.${String(ref.datasetId)}.${model.name}`.toLowerCase();
      const first = seen.get(key);
      if (first !== undefined) issues.add([...path, "tableReference", "tableId"], `duplicate table ${quote(key)} (also ${first})`);
      else seen.set(key, path.length ? `[${path[0]}]` : "the root");
    }
    models.push(model);
  }
  return finish("bigquery", base, issues, source, models);
}

export const bigqueryParser: SchemaParser = loadingParser("bigquery", loadJson, parseBigQuerySource);
