/**
 * Data Contract Specification 1.x (`dataContractSpecification: 1.x`): `models` is a map of models,
 * each with a map of `fields`; fields may `$ref` the contract's `definitions`.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import type { ValidateFunction } from "ajv";
import { OpenObject } from "../platform/http/shapes.js";
import { createAjv, standardViolations } from "../platform/validation.js";
import { DEFAULT_PARSE_LIMITS, FieldLimitExceeded, type ParseLimits } from "../schema-formats/limits.js";
import { isRecord } from "../schema-formats/text.js";
import { Definitions } from "../schema-formats/definitions.js";
import type { LogicalType, ModelKind, NormalizedField, NormalizedModel } from "../schema-formats/types.js";
import { isDcs1 } from "../formats/documents.js";
import { infoFacts, qualityRules, str } from "./members.js";
import { modelToSchemaObject, odcsHead, serversToOdcs } from "./to-odcs.js";
import type { ContractDocument, ContractFormat, ModelGroup } from "./types.js";

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

/** The definition a field's `$ref` names (`#/definitions/<name>`), when the contract has it. */
function target(field: Record<string, unknown>, definitions: Record<string, unknown>): string | undefined {
  const ref = str(field.$ref);
  const name = ref?.startsWith("#/definitions/") ? ref.slice("#/definitions/".length) : undefined;
  return name !== undefined && Object.hasOwn(definitions, name) && isRecord(definitions[name]) ? name : undefined;
}

/**
 * A simple definition (nothing nested) this small is described again at each use, so a shared
 * string format stays self-contained; a bigger one — a long description, a long enum — is
 * referred to, so its text appears once in the result (docs/security.md, linear normalization).
 */
const SIMPLE_REPEAT_BYTES = 256;

/**
 * One normalization: the contract's definitions, each described once and referred to at every
 * later use (`ref`), and how many fields it may still describe (MAX_MODEL_FIELDS).
 */
interface Normalizer {
  readonly definitions: Record<string, unknown>;
  readonly described: Definitions<string>;
  readonly small: Map<string, boolean>;
  left: number;
  readonly limit: number;
}

function isSmall(name: string, n: Normalizer): boolean {
  let small = n.small.get(name);
  if (small === undefined) {
    small = JSON.stringify(n.definitions[name]).length <= SIMPLE_REPEAT_BYTES;
    n.small.set(name, small);
  }
  return small;
}

/** The members a field states for itself; under them, those of the definition it refers to, if any. */
function members(out: NormalizedField, f: Record<string, unknown>): void {
  if (str(f.description) !== undefined) out.description = str(f.description);
  if (f.primaryKey === true || f.primary === true) out.primaryKey = true;
  if (f.unique === true) out.unique = true;
  if (str(f.classification) !== undefined) out.classification = str(f.classification);
  if (Array.isArray(f.enum)) out.enum = f.enum as NonNullable<NormalizedField["enum"]>;
  for (const key of ["minLength", "maxLength", "precision", "scale"] as const) if (typeof f[key] === "number") out[key] = f[key];
  if (typeof f.pattern === "string") out.pattern = f.pattern;
  const quality = qualityRules(f.quality);
  if (quality) out.quality = quality;
}

function logical(physical: string): LogicalType {
  return LOGICAL[physical.toLowerCase()] ?? "unknown";
}

function field(name: string, raw: Record<string, unknown>, n: Normalizer, depth: number): NormalizedField {
  if (--n.left < 0) throw new FieldLimitExceeded(n.limit);
  const ref = target(raw, n.definitions);
  if (ref !== undefined && n.described.has(ref) && !(n.described.isSimple(ref) && isSmall(ref, n))) {
    // Met before, or being described higher up (a definition that uses itself): a reference.
    const definition = n.definitions[ref] as Record<string, unknown>;
    const out = n.described.refer(ref, {
      name,
      physicalType: str(raw.type) ?? str(definition.type) ?? "",
      required: (raw.required ?? definition.required) === true,
      ...(str(raw.description) === undefined ? {} : { description: str(raw.description) }),
    });
    const { description: _d, ...own } = raw;
    members(out, own);
    return out;
  }
  const f = ref === undefined ? raw : { ...(n.definitions[ref] as Record<string, unknown>), ...raw };
  const physical = str(f.type) ?? "";
  const out: NormalizedField = { name, type: logical(physical), physicalType: physical, required: f.required === true };
  members(out, f);
  const first = ref !== undefined && !n.described.has(ref);
  if (first) n.described.begin(ref, ref, out);
  // Nesting without references is as deep as the document, which the body's depth limit bounds.
  if (depth < 64) {
    if (isRecord(f.fields)) out.fields = Object.entries(f.fields).filter(([, v]) => isRecord(v)).map(([k, v]) => field(k, v as Record<string, unknown>, n, depth + 1));
    const element = isRecord(f.items) ? f.items : isRecord(f.values) ? f.values : undefined;
    if (element) out.items = field(isRecord(f.items) ? "items" : "values", element, n, depth + 1);
  }
  if (first) n.described.end(ref);
  return out;
}

const KINDS: Record<string, ModelKind> = { table: "table", view: "view", object: "object" };

/**
 * The models, linear in the document (docs/security.md): a definition used more than once is
 * described at its first use and listed once in `definitions`; every other use refers to it.
 */
function group(doc: ContractDocument, limits: ParseLimits): ModelGroup {
  const n: Normalizer = {
    definitions: isRecord(doc.definitions) ? doc.definitions : {},
    described: new Definitions<string>(),
    small: new Map(),
    left: limits.maxFields,
    limit: limits.maxFields,
  };
  const models = Object.entries(isRecord(doc.models) ? doc.models : {}).map(([name, m]) => {
    const model = isRecord(m) ? m : {};
    const out: NormalizedModel = {
      name,
      kind: KINDS[String(model.type ?? "table")] ?? "object",
      fields: Object.entries(isRecord(model.fields) ? model.fields : {})
        .filter(([, v]) => isRecord(v))
        .map(([k, v]) => field(k, v as Record<string, unknown>, n, 0)),
    };
    if (str(model.description) !== undefined) out.description = str(model.description);
    const quality = qualityRules(model.quality);
    if (quality) out.quality = quality;
    return out;
  });
  const definitions = n.described.list();
  return { type: "dcs", detectedType: "dcs", models, ...(definitions ? { definitions } : {}) };
}

export const dcsFormat: ContractFormat = {
  name: "dcs",
  label: "Data Contract Specification 1.x",
  // 0.9.x documents could already use `models`; without a Schema object they are read as this format.
  detects: isDcs1,
  validate(doc) {
    structure ??= createAjv({ verbose: true }).compile(DcsSchema);
    return structure(doc) ? [] : standardViolations(structure.errors);
  },
  facts: infoFacts,
  models: (doc, limits = DEFAULT_PARSE_LIMITS) => [group(doc, limits)],
  toOdcs(doc, groups) {
    const { id, info, terms, tags, servers, models: _m, dataContractSpecification: _spec, definitions: _d, ...rest } = doc;
    const odcsServers = serversToOdcs(servers);
    return {
      ...odcsHead(id, isRecord(info) ? info : {}, terms, tags, Object.entries(rest)),
      ...(odcsServers ? { servers: odcsServers } : {}),
      schema: (groups?.[0] ?? group(doc, DEFAULT_PARSE_LIMITS)).models.map((m) => modelToSchemaObject(m)),
    };
  },
};
