/**
 * Schema parsing: validates a contract's Schema object (`{type, specification}`) and turns its
 * specification into Steward's normalized models, or into every violation found.
 */
import { avroParser } from "./avro.js";
import { bigqueryParser } from "./bigquery.js";
import { customParser } from "./custom.js";
import { dbtParser } from "./dbt.js";
import { jsonschemaParser } from "./jsonschema.js";
import { countFields } from "./definitions.js";
import { DEFAULT_PARSE_LIMITS, specificationBytes, type ParseLimits } from "./limits.js";
import { recalledParse } from "./parse-cache.js";
import { joinPath, isRecord, quote } from "./text.js";
import { SCHEMA_TYPES } from "./types.js";
import type { ParseResult, SchemaParser, SchemaType } from "./types.js";

export * from "./types.js";
export { DEFAULT_PARSE_LIMITS, type ParseLimits } from "./limits.js";
export { countFields } from "./definitions.js";

export const parsers: Readonly<Record<SchemaType, SchemaParser>> = {
  dbt: dbtParser,
  bigquery: bigqueryParser,
  jsonschema: jsonschemaParser,
  avro: avroParser,
  custom: customParser,
};

/** The schema type a client's `type` names (`json-schema` is an accepted spelling of `jsonschema`). */
export function normalizeSchemaType(type: unknown): SchemaType | undefined {
  if (typeof type !== "string") return undefined;
  if (type === "json-schema") return "jsonschema";
  return (SCHEMA_TYPES as readonly string[]).includes(type) ? (type as SchemaType) : undefined;
}

/**
 * Parses one specification of a known type. Never throws: an unexpected failure inside a parser
 * becomes a violation on the specification.
 */
export function parseSpecification(type: SchemaType, specification: unknown, basePath: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): ParseResult {
  // Every kind, custom included: a specification is stored with its contract.
  const bytes = specificationBytes(specification);
  if (bytes > limits.maxSpecificationBytes) {
    const message = `the specification is ${bytes} bytes, more than the limit of ${limits.maxSpecificationBytes} (SPECIFICATION_LIMIT_BYTES)`;
    return { ok: false, violations: [{ field: basePath, message }] };
  }
  try {
    const result = parsers[type].parse(specification, basePath, limits);
    if (result.ok && countFields([...result.models.map((m) => m.fields), result.definitions]) > limits.maxFields) {
      const message = `the normalized models would have more than ${limits.maxFields} fields, the limit for one contract (MAX_MODEL_FIELDS)`;
      return { ok: false, violations: [{ field: basePath, message }] };
    }
    return result;
  } catch (error) {
    const reason = error instanceof RangeError ? "it is too large or too deeply nested" : "it could not be processed";
    return { ok: false, violations: [{ field: basePath, message: `the specification is invalid: ${reason}` }] };
  }
}

/**
 * Validates a Schema object and parses its specification.
 * @param basePath path of the Schema object in the request body, e.g. `schema[0]`
 */
export function parseSchema(schema: unknown, basePath: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): ParseResult {
  const recalled = recalledParse(schema, basePath);
  if (recalled) return recalled;
  if (!isRecord(schema)) {
    return { ok: false, violations: [{ field: basePath, message: "a schema must be an object with type and specification" }] };
  }
  const violations = [];
  const type = normalizeSchemaType(schema.type);
  if (type === undefined) {
    const message =
      schema.type === undefined
        ? "type is required"
        : `unknown schema type ${quote(schema.type)}; expected one of ${SCHEMA_TYPES.join(", ")} (or json-schema)`;
    violations.push({ field: joinPath(basePath, "type"), message });
  }
  const specPath = joinPath(basePath, "specification");
  if (schema.specification === undefined || schema.specification === null) {
    violations.push({ field: specPath, message: "specification is required" });
  }
  if (violations.length > 0 || type === undefined) return { ok: false, violations };
  return parseSpecification(type, schema.specification, specPath, limits);
}
