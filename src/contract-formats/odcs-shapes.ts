/**
 * The Open Data Contract Standard v3 (3.0.x–3.1.0) as JSON Schema, written from the standard's
 * facts: the members each object allows, which are required, their types and enums, and where the
 * standard closes an object (extensions go in `customProperties`). What depends on another
 * member's value (a server's members by its type, a quality rule's by its type) is checked from the
 * tables here by odcs-rules.ts, which keeps this schema quick to compile.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import { OpenObject } from "../platform/http/shapes.js";

const ref = (name: string) => Type.Ref(`#/$defs/${name}`);
const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const Str = Type.String();
const Int = Type.Integer();
const Bool = Type.Boolean();
const Num = Type.Number();
const Uri = Type.String({ format: "uri" });
const Strings = Type.Array(Type.String());

/** Identifiers of elements, stable across versions of a contract. */
const StableId = Type.String({ pattern: "^[A-Za-z0-9_-]+$" });

/** Server members per server type: [members, required members] (`type` and `server` are always required). */
export const SERVER_TYPES: Record<string, [Record<string, TSchema>, string[]]> = {
  api: [{ location: Uri }, ["location"]],
  athena: [{ stagingDir: Uri, schema: Str, catalog: Str, regionName: Str }, ["stagingDir", "schema"]],
  azure: [{ location: Uri, format: Str, delimiter: Str }, ["location", "format"]],
  bigquery: [{ project: Str, dataset: Str }, ["project", "dataset"]],
  clickhouse: [{ host: Str, port: Int, database: Str }, ["host", "port", "database"]],
  databricks: [{ host: Str, catalog: Str, schema: Str }, ["catalog", "schema"]],
  denodo: [{ host: Str, port: Int, database: Str }, ["host", "port"]],
  dremio: [{ host: Str, port: Int, schema: Str }, ["host", "port"]],
  duckdb: [{ database: Str, schema: Str }, ["database"]],
  glue: [{ account: Str, database: Str, location: Uri, format: Str }, ["account", "database"]],
  cloudsql: [{ host: Str, port: Int, database: Str, schema: Str }, ["host", "port", "database", "schema"]],
  db2: [{ host: Str, port: Int, database: Str, schema: Str }, ["host", "port", "database"]],
  hive: [{ host: Str, port: Int, database: Str }, ["host", "database"]],
  impala: [{ host: Str, port: Int, database: Str }, ["host", "database"]],
  informix: [{ host: Str, port: Int, database: Str }, ["host", "database"]],
  zen: [{ host: Str, port: Int, database: Str }, ["host", "database"]],
  custom: [
    {
      account: Str, catalog: Str, database: Str, dataset: Str, delimiter: Str, endpointUrl: Uri, format: Str, host: Str,
      location: Uri, path: Str, port: Int, project: Str, region: Str, regionName: Str, schema: Str, serviceName: Str,
      stagingDir: Str, stream: Str, warehouse: Str,
    },
    [],
  ],
  kafka: [{ host: Str, format: Str }, ["host"]],
  kinesis: [{ region: Str, format: Str }, []],
  local: [{ path: Str, format: Str }, ["path", "format"]],
  mysql: [{ host: Str, port: Int, database: Str }, ["host", "port", "database"]],
  oracle: [{ host: Str, port: Int, serviceName: Str }, ["host", "port", "serviceName"]],
  postgresql: [{ host: Str, port: Int, database: Str, schema: Str }, ["host", "port", "database", "schema"]],
  postgres: [{ host: Str, port: Int, database: Str, schema: Str }, ["host", "port", "database", "schema"]],
  presto: [{ host: Str, catalog: Str, schema: Str }, ["host"]],
  pubsub: [{ project: Str }, ["project"]],
  redshift: [{ host: Str, database: Str, schema: Str, region: Str, account: Str }, ["database", "schema"]],
  s3: [{ location: Uri, endpointUrl: Uri, format: Str, delimiter: Str }, ["location"]],
  sftp: [{ location: Type.String({ format: "uri", pattern: "^sftp://" }), format: Str, delimiter: Str }, ["location"]],
  snowflake: [{ host: Str, port: Int, account: Str, database: Str, schema: Str, warehouse: Str }, ["account", "database", "schema"]],
  sqlserver: [{ host: Str, port: Int, database: Str, schema: Str }, ["host", "database", "schema"]],
  synapse: [{ host: Str, port: Int, database: Str }, ["host", "port", "database"]],
  trino: [{ host: Str, port: Int, catalog: Str, schema: Str }, ["host", "port", "catalog", "schema"]],
  vertica: [{ host: Str, port: Int, database: Str, schema: Str }, ["host", "port", "database", "schema"]],
};

export const LOGICAL_TYPES = ["string", "date", "timestamp", "time", "number", "integer", "object", "array", "boolean"] as const;
export const QUALITY_METRICS = ["nullValues", "missingValues", "invalidValues", "duplicateValues", "rowCount"] as const;
/** The comparisons of library and sql rules; a rule has exactly one. */
export const QUALITY_OPERATORS = [
  "mustBe", "mustNotBe", "mustBeGreaterThan", "mustBeGreaterOrEqualTo", "mustBeLessThan", "mustBeLessOrEqualTo", "mustBeBetween", "mustNotBeBetween",
] as const;

const OPERATORS: Record<string, TSchema> = Object.fromEntries(
  QUALITY_OPERATORS.map((op) => [
    op,
    op.endsWith("Between") ? Type.Array(Num, { minItems: 2, maxItems: 2, uniqueItems: true }) : op === "mustBe" || op === "mustNotBe" ? Type.Unknown() : Num,
  ]),
);

/** Options of `logicalTypeOptions` per logical type (checked in odcs-rules.ts). */
export const TYPE_OPTIONS: Array<[string[], Record<string, TSchema>]> = [
  [["string"], { minLength: Type.Integer({ minimum: 0 }), maxLength: Type.Integer({ minimum: 0 }), pattern: Str, format: Str }],
  [["date"], { format: Str, exclusiveMaximum: Str, maximum: Str, exclusiveMinimum: Str, minimum: Str }],
  [["timestamp", "time"], { format: Str, exclusiveMaximum: Str, maximum: Str, exclusiveMinimum: Str, minimum: Str, timezone: Bool, defaultTimezone: Str }],
  [
    ["integer"],
    {
      multipleOf: Type.Number({ exclusiveMinimum: 0 }), maximum: Num, exclusiveMaximum: Num, minimum: Num, exclusiveMinimum: Num,
      format: Type.Union(["i8", "i16", "i32", "i64", "i128", "u8", "u16", "u32", "u64", "u128"].map((f) => Type.Literal(f))),
    },
  ],
  [["number"], { multipleOf: Type.Number({ exclusiveMinimum: 0 }), maximum: Num, exclusiveMaximum: Num, minimum: Num, exclusiveMinimum: Num, format: Type.Union([Type.Literal("f32"), Type.Literal("f64")]) }],
  [["object"], { maxProperties: Type.Integer({ minimum: 0 }), minProperties: Type.Integer({ minimum: 0 }), required: Type.Array(Str, { minItems: 1, uniqueItems: true }) }],
  [["array"], { maxItems: Type.Integer({ minimum: 0 }), minItems: Type.Integer({ minimum: 0 }), uniqueItems: Bool }],
];

const closed = (properties: Record<string, TSchema>, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });


const REFERENCE = "^(?:[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*|(?:(?:https?://)?[A-Za-z0-9._\\-/]+\\.yaml#)?/?[A-Za-z_][A-Za-z0-9_]*/[A-Za-z0-9_-]+(?:/[A-Za-z_][A-Za-z0-9_]*/[A-Za-z0-9_-]+)*)$";
const Reference = Type.String({ pattern: REFERENCE });
const References = Type.Unsafe({
  anyOf: [Reference, Type.Array(Reference, { minItems: 1 })],
  "x-message": "must be a reference (`table.column` or `schema/<id>/properties/<id>`) or a non-empty list of them",
});

function definitions(): Record<string, TSchema> {
  const elementMembers = {
    id: opt(StableId),
    name: opt(Str),
    physicalType: opt(Str),
    description: opt(Str),
    businessName: opt(Str),
    authoritativeDefinitions: opt(ref("AuthoritativeDefinitions")),
    tags: opt(Strings),
    customProperties: opt(ref("CustomProperties")),
  };
  const propertyMembers = {
    ...elementMembers,
    primaryKey: opt(Bool),
    primaryKeyPosition: opt(Int),
    logicalType: opt(Type.Union(LOGICAL_TYPES.map((t) => Type.Literal(t)))),
    logicalTypeOptions: opt(Type.Object({})),
    physicalName: opt(Str),
    required: opt(Bool),
    unique: opt(Bool),
    partitioned: opt(Bool),
    partitionKeyPosition: opt(Int),
    classification: opt(Str),
    encryptedName: opt(Str),
    transformSourceObjects: opt(Strings),
    transformLogic: opt(Str),
    transformDescription: opt(Str),
    examples: opt(Type.Array(Type.Unknown())),
    criticalDataElement: opt(Bool),
    relationships: opt(Type.Array(ref("RelationshipPropertyLevel"))),
    quality: opt(Type.Array(ref("DataQuality"))),
    // Allowed by the standard only with logicalType object / array; checked in odcs.ts.
    properties: opt(Type.Array(ref("SchemaProperty"))),
    items: opt(ref("SchemaItemProperty")),
  };
  return {
    CustomProperty: closed({ id: opt(StableId), property: Str, value: Type.Unknown(), description: opt(Str) }),
    CustomProperties: Type.Array(ref("CustomProperty")),
    AuthoritativeDefinitions: Type.Array(closed({ id: opt(StableId), url: Str, type: Str, description: opt(Str) })),
    Role: closed({
      id: opt(StableId), role: Str, description: opt(Str), access: opt(Str), firstLevelApprovers: opt(Str), secondLevelApprovers: opt(Str),
      customProperties: opt(ref("CustomProperties")),
    }),
    TeamMember: closed({
      id: opt(StableId), username: Str, name: opt(Str), description: opt(Str), role: opt(Str), dateIn: opt(Type.String({ format: "date" })),
      dateOut: opt(Type.String({ format: "date" })), replacedByUsername: opt(Str), tags: opt(Strings), customProperties: opt(ref("CustomProperties")),
      authoritativeDefinitions: opt(ref("AuthoritativeDefinitions")),
    }),
    Team: closed({
      id: opt(StableId), name: opt(Str), description: opt(Str), members: opt(Type.Array(ref("TeamMember"))), tags: opt(Strings),
      customProperties: opt(ref("CustomProperties")), authoritativeDefinitions: opt(ref("AuthoritativeDefinitions")),
    }),
    SupportItem: closed({
      id: opt(StableId), channel: Str, url: opt(Str), description: opt(Str), tool: opt(Str), scope: opt(Str), invitationUrl: opt(Str),
      customProperties: opt(ref("CustomProperties")),
    }),
    Pricing: closed({ id: opt(StableId), priceAmount: opt(Num), priceCurrency: opt(Str), priceUnit: opt(Str) }),
    SlaProperty: closed({
      id: opt(StableId), property: Str, value: Type.Union([Str, Num, Bool, Type.Null()]), valueExt: opt(Type.Union([Str, Num, Bool, Type.Null()])),
      unit: opt(Str), element: opt(Str), driver: opt(Str), description: opt(Str), scheduler: opt(Str), schedule: opt(Str),
    }),
    // What each server type adds, and requires, is checked from SERVER_TYPES in odcs-rules.ts.
    Server: OpenObject({
      id: opt(StableId), server: Str, type: Type.Union(Object.keys(SERVER_TYPES).map((t) => Type.Literal(t))), description: opt(Str),
      environment: opt(Str), roles: opt(Type.Array(ref("Role"))), customProperties: opt(ref("CustomProperties")),
    }),
    // Every member any quality type has; which type may use which, and requires it, is in odcs-rules.ts.
    DataQuality: closed({
      id: opt(StableId), authoritativeDefinitions: opt(ref("AuthoritativeDefinitions")), businessImpact: opt(Str),
      customProperties: opt(ref("CustomProperties")), description: opt(Str),
      dimension: opt(Type.Union(["accuracy", "completeness", "conformity", "consistency", "coverage", "timeliness", "uniqueness"].map((d) => Type.Literal(d)))),
      method: opt(Str), name: opt(Str), schedule: opt(Str), scheduler: opt(Str), severity: opt(Str), tags: opt(Strings),
      type: opt(Type.Union(["text", "library", "sql", "custom"].map((t) => Type.Literal(t)))), unit: opt(Str),
      metric: opt(Type.Union(QUALITY_METRICS.map((m) => Type.Literal(m)))), rule: opt(Str), arguments: opt(Type.Object({})),
      query: opt(Str), engine: opt(Str), implementation: opt(Type.Union([Str, Type.Object({})])),
      ...Object.fromEntries(Object.entries(OPERATORS).map(([k, v]) => [k, opt(v)])),
    }),
    RelationshipPropertyLevel: closed({ type: opt(Type.Literal("foreignKey")), to: References, customProperties: opt(ref("CustomProperties")) }),
    RelationshipSchemaLevel: closed(
      { type: opt(Type.Literal("foreignKey")), from: References, to: References, customProperties: opt(ref("CustomProperties")) },
      {
        oneOf: [{ properties: { from: { type: "string" }, to: { type: "string" } } }, { properties: { from: { type: "array" }, to: { type: "array" } } }],
        "x-message": "from and to must both be one reference or both be lists",
      },
    ),
    SchemaProperty: closed({ ...propertyMembers, name: Str }),
    SchemaItemProperty: closed(propertyMembers),
    SchemaObject: closed({
      ...elementMembers,
      name: Str,
      logicalType: opt(Type.Literal("object")),
      physicalName: opt(Str),
      dataGranularityDescription: opt(Str),
      properties: opt(Type.Array(ref("SchemaProperty"))),
      relationships: opt(Type.Array(ref("RelationshipSchemaLevel"))),
      quality: opt(Type.Array(ref("DataQuality"))),
    }),
  };
}

/** The whole ODCS v3 document. */
export function odcsDocumentSchema(): Record<string, unknown> {
  return {
    ...closed({
      version: Str,
      kind: Type.Literal("DataContract"),
      apiVersion: Type.Union(["v3.1.0", "v3.0.2", "v3.0.1", "v3.0.0"].map((v) => Type.Literal(v))),
      id: Str,
      name: opt(Str),
      tenant: opt(Str),
      tags: opt(Strings),
      status: Str,
      servers: opt(Type.Array(ref("Server"))),
      dataProduct: opt(Str),
      // The one object of the head the standard leaves open.
      description: opt(
        OpenObject({
          usage: opt(Str), purpose: opt(Str), limitations: opt(Str), authoritativeDefinitions: opt(ref("AuthoritativeDefinitions")),
          customProperties: opt(ref("CustomProperties")),
        }),
      ),
      domain: opt(Str),
      schema: opt(Type.Array(ref("SchemaObject"))),
      support: opt(Type.Array(ref("SupportItem"))),
      price: opt(ref("Pricing")),
      // The list form is 3.0's team, whose members 3.0 left open; 3.1 deprecates it in favour of the object.
      team: opt(Type.Unsafe({ if: { type: "array" }, then: { items: OpenObject({ username: Str, role: opt(Str), dateIn: opt(Str), dateOut: opt(Str), replacedByUsername: opt(Str) }) }, else: ref("Team") })),
      roles: opt(Type.Array(ref("Role"))),
      slaDefaultElement: opt(Str),
      slaProperties: opt(Type.Array(ref("SlaProperty"))),
      authoritativeDefinitions: opt(ref("AuthoritativeDefinitions")),
      customProperties: opt(ref("CustomProperties")),
      contractCreatedTs: opt(Type.String({ format: "date-time" })),
    }),
    $defs: definitions(),
  };
}
