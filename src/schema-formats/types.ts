/**
 * The one interface every schema kind is parsed behind. A parser turns a contract's
 * `specification` into Steward's normalized model list, or reports every problem it found.
 */

import type { ParseLimits } from "./limits.js";

export const SCHEMA_TYPES = ["dbt", "bigquery", "jsonschema", "avro", "custom"] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

/** One problem in a specification. `field` is a path into the request body. */
export interface Violation {
  field: string;
  message: string;
  /** 1-based position in the specification text, when the specification was sent as text. */
  line?: number;
  column?: number;
}

export type ModelKind = "table" | "view" | "materialized_view" | "record" | "object";

export type LogicalType =
  | "string"
  | "integer"
  | "number"
  | "boolean"
  | "date"
  | "time"
  | "timestamp"
  | "bytes"
  | "object"
  | "array"
  | "map"
  | "vector"
  | "enum"
  | "union"
  | "range"
  | "geography"
  | "json"
  | "interval"
  | "null"
  | "unknown";

export interface NormalizedField {
  name: string;
  type: LogicalType;
  /** The type exactly as the source format spells it (`INT64`, `text`, `["null","string"]`…). */
  physicalType: string;
  required: boolean;
  description?: string;
  /** Test names for dbt columns, qualified names kept (`dbt_utils.expression_is_true`). */
  tests?: string[];
  /** Nested fields of an object/record/struct. */
  fields?: NormalizedField[];
  /** Element type of an array (or value type of a map). */
  items?: NormalizedField;
  /** Key type of a map. */
  key?: NormalizedField;
  /** Length of a vector (ODCS `logicalTypeOptions.dimensions`). */
  dimensions?: number;
  /** Allowed symbols of an enum. */
  symbols?: string[];
  /** Part of the model's primary key (ODCS `primaryKey`, DCS `primaryKey`/`primary`). */
  primaryKey?: boolean;
  unique?: boolean;
  /** Data classification as the contract names it (`public`, `restricted`, `PII`…). */
  classification?: string;
  /** Allowed values (DCS `enum`); Avro enums use `symbols`. */
  enum?: Array<string | number | boolean | null>;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  precision?: number;
  scale?: number;
  /** Data quality rules on this field. */
  quality?: QualityRule[];
  /**
   * The name of the entry in the result's `definitions` that describes this field's type: a
   * named type (Avro), `$ref` target (JSON Schema) or DCS definition met again, or recursively. Its nested
   * `fields`, `items` and `symbols` are there, described once, and not repeated here.
   */
  ref?: string;
}

/**
 * One data quality rule, as ODCS expresses rules: `text` (prose), `library` (a named metric
 * with one comparison), `sql` (a query with one comparison) or `custom` (an engine's own check).
 */
export interface QualityRule {
  type: "text" | "library" | "sql" | "custom";
  name?: string;
  description?: string;
  dimension?: string;
  severity?: string;
  /** `library`: nullValues, missingValues, invalidValues, duplicateValues, rowCount, or a legacy rule name. */
  metric?: string;
  arguments?: Record<string, unknown>;
  /** `sql`: the query whose result is compared. */
  query?: string;
  /** `custom`: the engine (`soda`, `great-expectations`, `dbt`…) and its implementation. */
  engine?: string;
  implementation?: unknown;
  /** `library`/`sql`: the comparison, e.g. `{operator: "mustBeLessThan", value: 10}`. */
  comparison?: { operator: string; value: unknown };
  /** Members of the rule as written that none of the above holds (`unit`, `dialect`, a second comparison…). */
  extra?: Record<string, unknown>;
}

export interface NormalizedModel {
  name: string;
  description?: string;
  kind: ModelKind;
  /** Model-level tests (dbt). */
  tests?: string[];
  /** Model-level data quality rules. */
  quality?: QualityRule[];
  fields: NormalizedField[];
}

export type ParseResult =
  | {
      ok: true;
      detectedType: SchemaType;
      models: NormalizedModel[];
      /** Types that fields refer to by `ref`, each described once (absent when none is). */
      definitions?: NormalizedField[];
    }
  | { ok: false; violations: Violation[] };

export interface SchemaParser {
  readonly type: SchemaType;
  /**
   * @param specification the raw `specification` value as it arrived (text, or already-parsed JSON value)
   * @param basePath path of the specification in the request body, e.g. `schema[0].specification`
   * @param limits how many fields the result may hold (defaults: `DEFAULT_PARSE_LIMITS`)
   */
  parse(specification: unknown, basePath: string, limits?: ParseLimits): ParseResult;
}
