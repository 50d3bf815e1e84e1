/**
 * Data Contract Specification 0.9.x with the seed's Schema object: `info` plus `schema: Schema |
 * Schema[]`, each `{type, specification}` parsed by its schema format (src/schema-formats).
 */
import { Type } from "@sinclair/typebox";
import type { ValidateFunction } from "ajv";
import type { FieldViolation } from "../platform/errors.js";
import { OpenObject } from "../platform/http/shapes.js";
import { createAjv, standardViolations } from "../platform/validation.js";
import { DEFAULT_PARSE_LIMITS, normalizeSchemaType, parseSchema, SCHEMA_TYPES, type ParseLimits } from "../schema-formats/index.js";
import { isRecord } from "../schema-formats/text.js";
import { namesDcs1 } from "../formats/documents.js";
import { infoFacts } from "./members.js";
import { modelToSchemaObject, odcsHead, serversToOdcs } from "./to-odcs.js";
import type { ContractDocument, ContractFormat, ModelGroup } from "./types.js";

/** Structure only; the content of `specification` is checked by the parser of its type. */
export const SchemaObjectSchema = OpenObject(
  {
    type: Type.String({ description: `One of ${SCHEMA_TYPES.join(", ")} (json-schema is accepted as jsonschema).`, examples: [...SCHEMA_TYPES] }),
    specification: Type.Unknown({ description: "The schema: text (YAML for dbt, JSON for the others, anything for custom) or the same structure as JSON." }),
  },
  { title: "Schema" },
);

const StringMap = Type.Record(Type.String(), Type.String());

export const Dcs09Schema = OpenObject(
  {
    dataContractSpecification: Type.Optional(Type.String({ examples: ["0.9.3"] })),
    info: OpenObject({
      title: Type.String({ minLength: 1 }),
      version: Type.String({ minLength: 1 }),
      owner: Type.String({ minLength: 1, description: "Id of the owning team." }),
      description: Type.Optional(Type.String()),
      status: Type.Optional(Type.String({ examples: ["draft", "active", "deprecated", "retired"] })),
    }),
    provider: Type.Optional(OpenObject({ teamId: Type.Optional(Type.String()), dataProductId: Type.Optional(Type.String()), outputPortId: Type.Optional(Type.String()) })),
    terms: Type.Optional(OpenObject({})),
    schema: Type.Union([Type.Object({}), Type.Array(Type.Object({}), { minItems: 1 })], { description: "One schema or several." }),
    tags: Type.Optional(Type.Array(Type.String())),
    links: Type.Optional(StringMap),
    custom: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: "DataContractSpecification09" },
);

let structure: ValidateFunction | undefined;

export interface SchemaEntry {
  schema: unknown;
  path: string;
}

export function schemasOf(doc: ContractDocument): SchemaEntry[] {
  return Array.isArray(doc.schema) ? doc.schema.map((schema, i) => ({ schema, path: `schema[${i}]` })) : [{ schema: doc.schema, path: "schema" }];
}

/** Parses one Schema object whose place in the request body is `path`. */
export function checkSchema(schema: unknown, path: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): { ok: true; parsed: ModelGroup } | { ok: false; violations: FieldViolation[] } {
  const result = parseSchema(schema, path, limits);
  if (!result.ok) return { ok: false, violations: result.violations };
  const type = normalizeSchemaType((schema as { type: unknown }).type) ?? String((schema as { type: unknown }).type);
  const parsed: ModelGroup = { type, detectedType: result.detectedType, models: result.models };
  if (result.definitions) parsed.definitions = result.definitions;
  return { ok: true, parsed };
}

function groups(doc: ContractDocument, limits: ParseLimits = DEFAULT_PARSE_LIMITS): ModelGroup[] {
  return schemasOf(doc).flatMap(({ schema, path }) => {
    const check = checkSchema(schema, path, limits);
    return check.ok ? [check.parsed] : [];
  });
}

export const dcs09Format: ContractFormat = {
  name: "dcs-0.9",
  label: "Data Contract Specification 0.9 (Schema object)",
  detects: (doc) => doc.schema !== undefined || !namesDcs1(doc),
  validate(doc, limits = DEFAULT_PARSE_LIMITS) {
    structure ??= createAjv({ verbose: true }).compile(Dcs09Schema);
    const violations = structure(doc) ? [] : standardViolations(structure.errors);
    if (doc.schema === undefined || doc.schema === null) return violations;
    // Each schema is held to the field limit as it is parsed; the contract's total, across its
    // schemas, is counted where every format's models are (./models.ts).
    for (const { schema, path } of schemasOf(doc)) {
      if (violations.some((v) => v.field === path)) continue;
      const check = checkSchema(schema, path, limits);
      if (!check.ok) violations.push(...check.violations);
    }
    return violations;
  },
  facts: infoFacts,
  models: groups,
  toOdcs(doc, built) {
    const { id, info, terms, tags, servers, schema, dataContractSpecification: _spec, ...rest } = doc;
    const head = odcsHead(id, isRecord(info) ? info : {}, terms, tags, Object.entries(rest));
    const customSchemas = schemasOf(doc).filter(({ schema: s }) => isRecord(s) && normalizeSchemaType(s.type) === "custom");
    if (customSchemas.length > 0) {
      // A custom schema has no models; its text is kept as it was.
      head.customProperties = [...((head.customProperties as unknown[]) ?? []), ...customSchemas.map(({ schema: s }) => ({ property: "customSchema", value: (s as Record<string, unknown>).specification }))];
    }
    const odcsServers = serversToOdcs(servers);
    return {
      ...head,
      ...(odcsServers ? { servers: odcsServers } : {}),
      schema: (built ?? groups(doc)).flatMap((g) => g.models.map((m) => modelToSchemaObject(m, g.detectedType))),
    };
  },
};
