/**
 * Data Contract Specification 1.x (`dataContractSpecification: 1.x`): `models` is a map of models,
 * each with a map of `fields`; fields may `$ref` the contract's `definitions`.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import type { ValidateFunction } from "ajv";
import { OpenObject } from "../platform/http/shapes.js";
import { createAjv, standardViolations } from "../platform/validation.js";
import { FieldLimitExceeded, parseLimits, type ParseLimits } from "../schema-formats/limits.js";
import { isRecord } from "../schema-formats/text.js";
import type { LogicalType, ModelKind, NormalizedField, NormalizedModel } from "../schema-formats/types.js";
import { infoFacts, qualityRules, str } from "./members.js";
import { modelToSchemaObject, odcsHead, serversToOdcs } from "./to-odcs.js";
import type { ContractDocument, ContractFormat } from "./types.js";

const Field: TSchema = Type.Recursive(
  (Self) =>
    OpenObject({
      type: Type.Optional(Type.String()),
      required: Type.Optional(Type.Boolean()),
      primaryKey: Type.Optional(Type.Boolean()),
      primary: Type.Optional(Type.Boolean()),
      unique: Type.Optional(Type.Boolean()),
      description: Type.Optional(Type.String()),
      enum: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]))),
      minLength: Type.Optional(Type.Integer({ minimum: 0 })),
      maxLength: Type.Optional(Type.Integer({ minimum: 0 })),
      pattern: Type.Optional(Type.String()),
      precision: Type.Optional(Type.Integer({ minimum: 0 })),
      scale: Type.Optional(Type.Integer()),
      classification: Type.Optional(Type.String()),
      $ref: Type.Optional(Type.String()),
      items: Type.Optional(Self),
      values: Type.Optional(Self),
      fields: Type.Optional(Type.Record(Type.String(), Self)),
      quality: Type.Optional(Type.Array(Type.Object({}))),
    }),
  { $id: "DcsField" },
);

export const DcsSchema = OpenObject(
  {
    dataContractSpecification: Type.Optional(Type.String({ examples: ["1.2.1"] })),
    info: OpenObject({
      title: Type.String({ minLength: 1 }),
      version: Type.String({ minLength: 1 }),
      owner: Type.String({ minLength: 1, description: "Id of the owning team." }),
      description: Type.Optional(Type.String()),
      status: Type.Optional(Type.String()),
    }),
    servers: Type.Optional(Type.Record(Type.String(), Type.Object({}))),
    terms: Type.Optional(Type.Object({})),
    // A contract may name its terms and servers before it has models.
    models: Type.Optional(
      Type.Record(
        Type.String(),
        OpenObject({
          type: Type.Optional(Type.String()),
          description: Type.Optional(Type.String()),
          fields: Type.Optional(Type.Record(Type.String(), Field)),
          quality: Type.Optional(Type.Array(Type.Object({}))),
        }),
      ),
    ),
    definitions: Type.Optional(Type.Record(Type.String(), Type.Object({}))),
    tags: Type.Optional(Type.Array(Type.String())),
  },
  { title: "DataContractSpecification1" },
);

let structure: ValidateFunction | undefined;

const LOGICAL: Record<string, LogicalType> = {
  string: "string", text: "string", varchar: "string",
  number: "number", decimal: "number", numeric: "number", float: "number", double: "number",
  integer: "integer", int: "integer", long: "integer", bigint: "integer",
  boolean: "boolean", date: "date", time: "time",
  timestamp: "timestamp", timestamp_tz: "timestamp", timestamp_ntz: "timestamp",
  bytes: "bytes", array: "array", map: "map", object: "object", record: "object", struct: "object", null: "null",
};

/** A `$ref` to `#/definitions/<name>`: the definition's members under the field's own. */
function resolve(field: Record<string, unknown>, definitions: Record<string, unknown>): Record<string, unknown> {
  const ref = str(field.$ref);
  const name = ref?.startsWith("#/definitions/") ? ref.slice("#/definitions/".length) : undefined;
  const definition = name !== undefined && isRecord(definitions[name]) ? definitions[name] : undefined;
  return definition ? { ...definition, ...field } : field;
}

/**
 * What one normalization may still produce. A `$ref` is expanded wherever it is used, so a few
 * definitions that each use the next twice would describe 2^64 fields: the walk stops at the limit
 * instead of running out of time and memory.
 */
interface Budget {
  left: number;
  readonly limit: number;
}

function field(name: string, raw: Record<string, unknown>, definitions: Record<string, unknown>, depth: number, budget: Budget): NormalizedField {
  if (--budget.left < 0) throw new FieldLimitExceeded(budget.limit);
  const f = resolve(raw, definitions);
  const physical = str(f.type) ?? "";
  const out: NormalizedField = { name, type: LOGICAL[physical.toLowerCase()] ?? "unknown", physicalType: physical, required: f.required === true };
  if (str(f.description) !== undefined) out.description = str(f.description);
  if (f.primaryKey === true || f.primary === true) out.primaryKey = true;
  if (f.unique === true) out.unique = true;
  if (str(f.classification) !== undefined) out.classification = str(f.classification);
  if (Array.isArray(f.enum)) out.enum = f.enum as NonNullable<NormalizedField["enum"]>;
  for (const key of ["minLength", "maxLength", "precision", "scale"] as const) if (typeof f[key] === "number") out[key] = f[key];
  if (typeof f.pattern === "string") out.pattern = f.pattern;
  const quality = qualityRules(f.quality);
  if (quality) out.quality = quality;
  // Definitions may refer to each other; past this depth a cycle is cut rather than followed.
  if (depth < 64) {
    if (isRecord(f.fields)) out.fields = Object.entries(f.fields).filter(([, v]) => isRecord(v)).map(([n, v]) => field(n, v as Record<string, unknown>, definitions, depth + 1, budget));
    const element = isRecord(f.items) ? f.items : isRecord(f.values) ? f.values : undefined;
    if (element) out.items = field(isRecord(f.items) ? "items" : "values", element, definitions, depth + 1, budget);
  }
  return out;
}

const KINDS: Record<string, ModelKind> = { table: "table", view: "view", object: "object" };

function models(doc: ContractDocument, limits: ParseLimits): NormalizedModel[] {
  const definitions = isRecord(doc.definitions) ? doc.definitions : {};
  const budget: Budget = { left: limits.maxFields, limit: limits.maxFields };
  return Object.entries(isRecord(doc.models) ? doc.models : {}).map(([name, m]) => {
    const model = isRecord(m) ? m : {};
    const out: NormalizedModel = {
      name,
      kind: KINDS[String(model.type ?? "table")] ?? "object",
      fields: Object.entries(isRecord(model.fields) ? model.fields : {})
        .filter(([, v]) => isRecord(v))
        .map(([n, v]) => field(n, v as Record<string, unknown>, definitions, 0, budget)),
    };
    if (str(model.description) !== undefined) out.description = str(model.description);
    const quality = qualityRules(model.quality);
    if (quality) out.quality = quality;
    return out;
  });
}

export const dcsFormat: ContractFormat = {
  name: "dcs",
  label: "Data Contract Specification 1.x",
  // 0.9.x documents could already use `models`; without a Schema object they are read as this format.
  detects: (doc) =>
    (typeof doc.dataContractSpecification === "string" && /^[1-9]/.test(doc.dataContractSpecification)) || (doc.schema === undefined && isRecord(doc.models)),
  validate(doc) {
    structure ??= createAjv({ verbose: true }).compile(DcsSchema);
    return structure(doc) ? [] : standardViolations(structure.errors);
  },
  facts: infoFacts,
  models: (doc, limits = parseLimits()) => [{ type: "dcs", detectedType: "dcs", models: models(doc, limits) }],
  toOdcs(doc, groups) {
    const { id, info, terms, tags, servers, models: _m, dataContractSpecification: _spec, definitions: _d, ...rest } = doc;
    const odcsServers = serversToOdcs(servers);
    return {
      ...odcsHead(id, isRecord(info) ? info : {}, terms, tags, Object.entries(rest)),
      ...(odcsServers ? { servers: odcsServers } : {}),
      schema: (groups?.[0]?.models ?? models(doc, parseLimits())).map((m) => modelToSchemaObject(m)),
    };
  },
};
