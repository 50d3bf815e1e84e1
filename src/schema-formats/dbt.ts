/**
 * dbt properties files (`version: 2`, `models[]`), as YAML text or the same structure as a value.
 */
import type { LogicalType, ModelKind, NormalizedField, NormalizedModel, ParseResult, SchemaParser } from "./types.js";
import { Issues, SpecSource, finish, hasOwn, isRecord, kindOf, loadingParser, quote } from "./text.js";
import { loadYaml } from "./yaml-text.js";
import type { Path } from "./text.js";

const TEST_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const CONSTRAINT_TYPES = new Set(["not_null", "unique", "primary_key", "foreign_key", "check", "custom"]);

const MATERIALIZED_KIND: Record<string, ModelKind> = {
  table: "table",
  incremental: "table",
  view: "view",
  materialized_view: "materialized_view",
};

/** Logical type of a warehouse column type as dbt users spell it (`varchar(255)`, `timestamp_ntz`, `text[]`). */
export function dbtLogicalType(dataType: string | undefined): LogicalType {
  if (dataType === undefined) return "unknown";
  const t = dataType.trim().toLowerCase();
  if (t === "") return "unknown";
  if (t.endsWith("[]") || t.startsWith("array")) return "array";
  // The base name: up to the first parenthesis, angle bracket or space (`numeric(10,2)`, `struct<a int>`).
  const base = /^[a-z0-9_]+/.exec(t)?.[0] ?? t;
  if (base.startsWith("timestamp") || base === "datetime" || base === "datetime2" || base === "smalldatetime") {
    return "timestamp";
  }
  if (base === "time" || base === "timetz") return "time";
  if (base === "date") return "date";
  if (base === "struct" || base === "object" || base === "record" || base === "row") return "object";
  if (base === "map") return "map";
  return SQL_TYPES[base] ?? "unknown";
}

const SQL_TYPES: Record<string, LogicalType> = {
  text: "string", varchar: "string", nvarchar: "string", string: "string", citext: "string", uuid: "string",
  bpchar: "string", clob: "string", char: "string", nchar: "string", character: "string",
  int: "integer", integer: "integer", bigint: "integer", smallint: "integer", tinyint: "integer", byteint: "integer",
  int2: "integer", int4: "integer", int8: "integer", int64: "integer", serial: "integer", bigserial: "integer",
  numeric: "number", decimal: "number", number: "number", bignumeric: "number", float: "number", float4: "number",
  float8: "number", float64: "number", real: "number", double: "number", money: "number",
  boolean: "boolean", bool: "boolean",
  bytea: "bytes", binary: "bytes", varbinary: "bytes", bytes: "bytes", blob: "bytes",
  json: "json", jsonb: "json", variant: "json",
  geography: "geography", geometry: "geography",
  interval: "interval",
};

/** Parses the tests of a model or column, validating the parameters of dbt's built-in tests. */
function parseTests(value: unknown, path: Path, level: "model" | "column", issues: Issues): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    issues.add(path, `must be a list of tests, not ${kindOf(value)}`);
    return [];
  }
  const names: string[] = [];
  value.forEach((item, i) => {
    const itemPath = [...path, i];
    let name: string;
    let params: unknown;
    let paramsPath: Path;
    if (typeof item === "string") {
      name = item.trim();
      params = undefined;
      paramsPath = itemPath;
    } else if (isRecord(item)) {
      const keys = Object.keys(item);
      if (typeof item.test_name === "string") {
        // The long form: `{name: custom_name, test_name: unique, ...parameters}`.
        name = item.test_name;
        params = item;
        paramsPath = itemPath;
      } else if (keys.length === 1) {
        name = keys[0];
        params = item[name];
        paramsPath = [...itemPath, name];
      } else {
        issues.add(itemPath, "a test object must have exactly one key, the test name (e.g. {accepted_values: {values: [...]}})");
        return;
      }
    } else {
      issues.add(itemPath, `a test must be a test name or a test object, not ${kindOf(item)}`);
      return;
    }
    if (!TEST_NAME.test(name)) {
      issues.add(itemPath, `invalid test name ${quote(name)}`);
      return;
    }
    if (params !== undefined && params !== null && !isRecord(params)) {
      issues.add(paramsPath, `test parameters must be a mapping, not ${kindOf(params)}`);
      return;
    }
    checkBuiltinTest(name, params ?? undefined, paramsPath, level, issues);
    names.push(name);
  });
  return names;
}

function checkBuiltinTest(
  name: string,
  params: Record<string, unknown> | undefined,
  path: Path,
  level: "model" | "column",
  issues: Issues,
): void {
  if (!["unique", "not_null", "accepted_values", "relationships"].includes(name)) return;
  // dbt ≥ 1.10 nests test arguments under `arguments`; older files put them next to `config`.
  let args = params;
  let argsPath = path;
  if (params && isRecord(params.arguments)) {
    args = params.arguments;
    argsPath = [...path, "arguments"];
  }
  const missing = (key: string, what: string) => {
    issues.add(args ? [...argsPath, key] : path, `the ${name} test needs ${what}`);
  };
  const nonEmptyString = (key: string) => typeof args?.[key] === "string" && (args[key] as string).trim() !== "";
  if (level === "model" && !nonEmptyString("column_name")) missing("column_name", "a column_name when declared on a model");
  if (name === "accepted_values") {
    if (!args || !hasOwn(args, "values")) missing("values", "a list of values");
    else if (!Array.isArray(args.values) || args.values.length === 0) {
      issues.add([...argsPath, "values"], "values must be a non-empty list");
    }
    if (args && args.quote !== undefined && typeof args.quote !== "boolean") {
      issues.add([...argsPath, "quote"], "quote must be true or false");
    }
  } else if (name === "relationships") {
    if (!nonEmptyString("to")) missing("to", "a target model, e.g. to: ref('customers')");
    if (!nonEmptyString("field")) missing("field", "the target column in field");
  }
}

function checkString(record: Record<string, unknown>, key: string, path: Path, issues: Issues): string | undefined {
  const value = record[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    issues.add([...path, key], `must be a string, not ${kindOf(value)}`);
    return undefined;
  }
  return value;
}

/** `tests` and `data_tests` are synonyms; dbt rejects a node that has both. */
function testsOf(node: Record<string, unknown>, path: Path, level: "model" | "column", issues: Issues): string[] {
  const tests = parseTests(node.tests, [...path, "tests"], level, issues);
  if (node.tests !== undefined && node.data_tests !== undefined) {
    issues.add([...path, "data_tests"], "tests and data_tests cannot both be given");
    return tests;
  }
  return [...tests, ...parseTests(node.data_tests, [...path, "data_tests"], level, issues)];
}

/** True when the column's constraints include one that implies NOT NULL. */
function checkConstraints(value: unknown, path: Path, issues: Issues): boolean {
  if (value === undefined || value === null) return false;
  if (!Array.isArray(value)) {
    issues.add(path, `must be a list of constraints, not ${kindOf(value)}`);
    return false;
  }
  let notNull = false;
  value.forEach((c, i) => {
    if (!isRecord(c) || typeof c.type !== "string") {
      issues.add(isRecord(c) ? [...path, i, "type"] : [...path, i], "a constraint needs a type");
    } else if (!CONSTRAINT_TYPES.has(c.type)) {
      issues.add([...path, i, "type"], `unknown constraint type ${quote(c.type)}; expected one of ${[...CONSTRAINT_TYPES].join(", ")}`);
    } else if (c.type === "not_null" || c.type === "primary_key") {
      notNull = true;
    }
  });
  return notNull;
}

function parseColumn(column: unknown, path: Path, issues: Issues): NormalizedField | undefined {
  if (!isRecord(column)) {
    issues.add(path, `a column must be a mapping, not ${kindOf(column)}`);
    return undefined;
  }
  let name = "";
  if (typeof column.name !== "string" || column.name.trim() === "") {
    issues.add([...path, "name"], column.name === undefined ? "a column needs a name" : "must be a non-empty string");
  } else {
    name = column.name;
  }
  const dataType = checkString(column, "data_type", path, issues);
  const description = checkString(column, "description", path, issues);
  const tests = testsOf(column, path, "column", issues);
  const constrainedNotNull = checkConstraints(column.constraints, [...path, "constraints"], issues);
  const field: NormalizedField = {
    name,
    type: dbtLogicalType(dataType),
    physicalType: dataType ?? "",
    required: constrainedNotNull || tests.includes("not_null"),
  };
  if (description !== undefined) field.description = description;
  if (tests.length > 0) field.tests = tests;
  return field;
}

function parseModel(model: unknown, path: Path, issues: Issues): NormalizedModel | undefined {
  if (!isRecord(model)) {
    issues.add(path, `a model must be a mapping, not ${kindOf(model)}`);
    return undefined;
  }
  let name = "";
  if (typeof model.name !== "string" || model.name.trim() === "") {
    issues.add([...path, "name"], model.name === undefined ? "a model needs a name" : "must be a non-empty string");
  } else {
    name = model.name;
  }
  const description = checkString(model, "description", path, issues);
  let kind: ModelKind = "table";
  if (model.config !== undefined && model.config !== null) {
    if (!isRecord(model.config)) {
      issues.add([...path, "config"], `must be a mapping, not ${kindOf(model.config)}`);
    } else {
      const materialized = checkString(model.config, "materialized", [...path, "config"], issues);
      if (materialized !== undefined) kind = MATERIALIZED_KIND[materialized] ?? "table";
    }
  }
  const tests = testsOf(model, path, "model", issues);
  const fields: NormalizedField[] = [];
  const columns = model.columns;
  if (columns !== undefined && columns !== null) {
    if (!Array.isArray(columns)) {
      issues.add([...path, "columns"], `must be a list of columns, not ${kindOf(columns)}`);
    } else {
      const seen = new Map<string, number>();
      columns.forEach((column, i) => {
        const columnPath = [...path, "columns", i];
        const field = parseColumn(column, columnPath, issues);
        if (!field || field.name === "") return;
        const key = field.name.toLowerCase();
        const first = seen.get(key);
        if (first !== undefined) {
          issues.add([...columnPath, "name"], `duplicate column name ${quote(field.name)} (also columns[${first}])`);
        } else {
          seen.set(key, i);
        }
        fields.push(field);
      });
    }
  }
  const normalized: NormalizedModel = { name, kind, fields };
  if (description !== undefined) normalized.description = description;
  if (tests.length > 0) normalized.tests = tests;
  return normalized;
}

export function parseDbtSource(source: SpecSource, base: string): ParseResult {
  const issues = new Issues();
  const models: NormalizedModel[] = [];
  const root = source.value;
  if (!isRecord(root)) {
    issues.add([], `a dbt properties file must be a mapping with version and models, not ${kindOf(root)}`);
    return finish("dbt", base, issues, source, models);
  }
  if (root.version === undefined) issues.add(["version"], "version is required and must be 2");
  else if (root.version !== 2) issues.add(["version"], `version must be 2, not ${quote(root.version)}`);
  if (root.models === undefined || root.models === null) {
    issues.add(["models"], "models is required");
  } else if (!Array.isArray(root.models)) {
    issues.add(["models"], `models must be a list, not ${kindOf(root.models)}`);
  } else if (root.models.length === 0) {
    issues.add(["models"], "models must list at least one model");
  } else {
    const seen = new Map<string, number>();
    root.models.forEach((model, i) => {
      const normalized = parseModel(model, ["models", i], issues);
      if (!normalized || normalized.name === "") return;
      const first = seen.get(normalized.name);
      if (first !== undefined) {
        issues.add(["models", i, "name"], `duplicate model name ${quote(normalized.name)} (also models[${first}])`);
      } else {
        seen.set(normalized.name, i);
      }
      models.push(normalized);
    });
  }
  return finish("dbt", base, issues, source, models);
}

export const dbtParser: SchemaParser = loadingParser("dbt", loadYaml, parseDbtSource);
