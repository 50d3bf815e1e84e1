/**
 * The Open Data Contract Standard v3.1.0 as JSON Schema, written from the standard's facts: the
 * members each object allows, which are required, their types and enums. An older edition is
 * described by how it differs from these facts (odcs-editions.ts), and `odcsDocumentSchema` builds
 * the schema of either. What depends on another member's value (a server's members by its type,
 * a quality rule's by its type, options by logicalType) is checked from the tables here by
 * odcs-rules.ts, which keeps this schema quick to compile.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import type { OdcsEdition } from "./odcs-editions.js";

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
export type ServerTypes = Record<string, [Record<string, TSchema>, string[]]>;
export const SERVER_TYPES: ServerTypes = {
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

export const OPERATORS: Record<string, TSchema> = Object.fromEntries(
  QUALITY_OPERATORS.map((op) => [
    op,
    op.endsWith("Between") ? Type.Array(Num, { minItems: 2, maxItems: 2, uniqueItems: true }) : op === "mustBe" || op === "mustNotBe" ? Type.Unknown() : Num,
  ]),
);

/** Options of `logicalTypeOptions` per logical type (checked in odcs-rules.ts). */
export type TypeOptions = Array<[string[], Record<string, TSchema>]>;
export const TYPE_OPTIONS: TypeOptions = [
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

/** What a quality rule of one type adds to the common members, and requires (checked in odcs-rules.ts). */
export interface QualityKind {
  members: Record<string, TSchema>;
  required: string[];
  /** The rule states exactly one of QUALITY_OPERATORS. */
  oneComparison: boolean;
}
export type QualityKinds = Record<"library" | "sql" | "custom", QualityKind>;
export const QUALITY_KINDS: QualityKinds = {
  library: {
    members: { metric: Type.Union(QUALITY_METRICS.map((m) => Type.Literal(m))), rule: Str, arguments: Type.Object({}), ...OPERATORS },
    required: ["metric"],
    oneComparison: true,
  },
  sql: { members: { query: Str, ...OPERATORS }, required: ["query"], oneComparison: true },
  custom: { members: { engine: Str, implementation: Type.Union([Str, Type.Object({})]) }, required: ["engine", "implementation"], oneComparison: false },
};
export const QUALITY_DIMENSIONS = ["accuracy", "completeness", "conformity", "consistency", "coverage", "timeliness", "uniqueness"] as const;


export const REFERENCE = "^(?:[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*|(?:(?:https?://)?[A-Za-z0-9._\\-/]+\\.yaml#)?/?[A-Za-z_][A-Za-z0-9_]*/[A-Za-z0-9_-]+(?:/[A-Za-z_][A-Za-z0-9_]*/[A-Za-z0-9_-]+)*)$";
function references(pattern: string): TSchema {
  const Reference = Type.String({ pattern });
  return Type.Unsafe({
    anyOf: [Reference, Type.Array(Reference, { minItems: 1 })],
    "x-message": "must be a reference (`table.column` or `schema/<id>/properties/<id>`) or a non-empty list of them",
  });
}

/** Guidance for AI agents and tools on a contract or schema object: text, or instructions with verified statements and constraints. */
export const ContextSchema = Type.Union([
  Str,
  Type.Object(
    { instructions: opt(Str), verifiedStatements: opt(Type.Array(ref("VerifiedStatement"))), constraints: opt(Type.Array(ref("ContextConstraint"))) },
    { additionalProperties: false },
  ),
]);
export const objectRef = ref;

/** One object of the standard: its members (every one optional unless `required` names it). */
export interface ObjectFacts {
  members: Record<string, TSchema>;
  required?: string[];
  /** Further keywords of the object's schema. */
  options?: Record<string, unknown>;
}

export const ODCS_OBJECTS = [
  "AuthoritativeDefinition", "CustomProperty", "Role", "SupportItem", "Pricing", "SlaProperty", "TeamMember", "Team", "Server", "DataQuality",
  "RelationshipPropertyLevel", "RelationshipSchemaLevel", "SchemaObject", "SchemaProperty", "SchemaItemProperty",
  // Objects only a later edition refers to (see `adds` in odcs-editions.ts).
  "Synonym", "EnumValue", "VerifiedStatement", "ContextConstraint",
] as const;
export type OdcsObject = (typeof ODCS_OBJECTS)[number];

/** Every object of ODCS 3.1.0, with the enums that an edition sets (server and logical types). */
export function objectsOf(edition: OdcsEdition): Record<OdcsObject, ObjectFacts> {
  const CustomProperties = Type.Array(ref("CustomProperty"));
  const AuthoritativeDefinitions = Type.Array(ref("AuthoritativeDefinition"));
  const elementMembers = {
    id: StableId, name: Str, physicalType: Str, description: Str, businessName: Str, authoritativeDefinitions: AuthoritativeDefinitions, tags: Strings,
    customProperties: CustomProperties,
  };
  const propertyMembers = {
    ...elementMembers,
    primaryKey: Bool, primaryKeyPosition: Int, logicalType: Type.Union(edition.logicalTypes.map((t) => Type.Literal(t))), logicalTypeOptions: Type.Object({}),
    physicalName: Str, required: Bool, unique: Bool, partitioned: Bool, partitionKeyPosition: Int, classification: Str, encryptedName: Str,
    transformSourceObjects: Strings, transformLogic: Str, transformDescription: Str, examples: Type.Array(Type.Unknown()), criticalDataElement: Bool,
    relationships: Type.Array(ref("RelationshipPropertyLevel")), quality: Type.Array(ref("DataQuality")),
    // Allowed by the standard only with logicalType object / array; checked in odcs-rules.ts.
    properties: Type.Array(ref("SchemaProperty")), items: ref("SchemaItemProperty"),
  };
  const Scalar = Type.Union([Str, Num, Bool, Type.Null()]);
  const References = references(edition.referencePattern ?? REFERENCE);
  const contextEntry = { id: Str, authoritativeDefinitions: AuthoritativeDefinitions, tags: Strings, customProperties: CustomProperties };
  return {
    AuthoritativeDefinition: { members: { id: StableId, url: Str, type: Str, description: Str }, required: ["url", "type"] },
    CustomProperty: { members: { id: StableId, property: Str, value: Type.Unknown(), description: Str }, required: ["property", "value"] },
    Role: {
      members: { id: StableId, role: Str, description: Str, access: Str, firstLevelApprovers: Str, secondLevelApprovers: Str, customProperties: CustomProperties },
      required: ["role"],
    },
    SupportItem: {
      members: { id: StableId, channel: Str, url: Str, description: Str, tool: Str, scope: Str, invitationUrl: Str, customProperties: CustomProperties },
      required: ["channel"],
    },
    Pricing: { members: { id: StableId, priceAmount: Num, priceCurrency: Str, priceUnit: Str } },
    SlaProperty: {
      members: {
        id: StableId, property: Str, value: Scalar, valueExt: Scalar, unit: Str, element: Str, driver: Str, description: Str, scheduler: Str, schedule: Str,
      },
      required: ["property", "value"],
    },
    TeamMember: {
      members: {
        id: StableId, username: Str, name: Str, description: Str, role: Str, dateIn: Type.String({ format: "date" }), dateOut: Type.String({ format: "date" }),
        replacedByUsername: Str, tags: Strings, customProperties: CustomProperties, authoritativeDefinitions: AuthoritativeDefinitions,
      },
      required: ["username"],
    },
    Team: {
      members: {
        id: StableId, name: Str, description: Str, members: Type.Array(ref("TeamMember")), tags: Strings, customProperties: CustomProperties,
        authoritativeDefinitions: AuthoritativeDefinitions,
      },
    },
    // What each server type adds, and requires, is checked from the edition's server types in odcs-rules.ts.
    Server: {
      members: {
        id: StableId, server: Str, type: Type.Union(Object.keys(edition.serverTypes).map((t) => Type.Literal(t))), description: Str, environment: Str,
        roles: Type.Array(ref("Role")), customProperties: CustomProperties,
      },
      required: ["server", "type"],
    },
    // The members every quality rule has; what each type adds, and requires, is checked in odcs-rules.ts.
    DataQuality: {
      members: {
        id: StableId, authoritativeDefinitions: AuthoritativeDefinitions, businessImpact: Str, customProperties: CustomProperties, description: Str,
        dimension: Type.Union(QUALITY_DIMENSIONS.map((d) => Type.Literal(d))), method: Str, name: Str, schedule: Str, scheduler: Str, severity: Str,
        tags: Strings, type: Type.Union(["text", "library", "sql", "custom"].map((t) => Type.Literal(t))), unit: Str,
      },
    },
    RelationshipPropertyLevel: { members: { type: Type.Literal("foreignKey"), to: References, customProperties: CustomProperties }, required: ["to"] },
    RelationshipSchemaLevel: {
      members: { type: Type.Literal("foreignKey"), from: References, to: References, customProperties: CustomProperties },
      required: ["from", "to"],
      options: {
        oneOf: [{ properties: { from: { type: "string" }, to: { type: "string" } } }, { properties: { from: { type: "array" }, to: { type: "array" } } }],
        "x-message": "from and to must both be one reference or both be lists",
      },
    },
    SchemaObject: {
      members: {
        ...elementMembers, logicalType: Type.Literal("object"), physicalName: Str, dataGranularityDescription: Str, properties: Type.Array(ref("SchemaProperty")),
        relationships: Type.Array(ref("RelationshipSchemaLevel")), quality: Type.Array(ref("DataQuality")),
      },
      required: ["name"],
    },
    SchemaProperty: { members: propertyMembers, required: ["name"] },
    SchemaItemProperty: { members: propertyMembers },
    Synonym: { members: { id: StableId, synonym: Str, description: Str, locale: Str, source: Str, status: Str, customProperties: CustomProperties }, required: ["synonym"] },
    EnumValue: {
      members: {
        value: Scalar, label: Str, id: StableId, description: Str, customProperties: CustomProperties, authoritativeDefinitions: AuthoritativeDefinitions,
        tags: Strings,
      },
      required: ["value"],
    },
    VerifiedStatement: { members: { question: Str, answer: Str, ...contextEntry }, required: ["question"] },
    ContextConstraint: { members: { constraint: Str, ...contextEntry }, required: ["constraint"] },
  };
}

/** Server and quality members depend on the server's or rule's type: odcs-rules.ts closes those objects. */
const CLOSED_BY_RULES: ReadonlySet<OdcsObject> = new Set(["Server", "DataQuality"]);

/** The members and required members of one object in an edition. */
export function objectIn(edition: OdcsEdition, name: OdcsObject, facts: ObjectFacts): { members: Record<string, TSchema>; required: string[] } {
  const lacks = new Set([...(edition.lacks[name] ?? []), ...(edition.stableIds ? [] : ["id"])]);
  const members = { ...Object.fromEntries(Object.entries(facts.members).filter(([key]) => !lacks.has(key))), ...edition.adds?.[name] };
  return { members, required: edition.requires[name] ?? facts.required ?? [] };
}

function definition(edition: OdcsEdition, name: OdcsObject, facts: ObjectFacts): TSchema {
  const { members, required } = objectIn(edition, name, facts);
  const properties = Object.fromEntries(Object.entries(members).map(([key, schema]) => [key, required.includes(key) ? schema : Type.Optional(schema)]));
  const open = CLOSED_BY_RULES.has(name) || edition.open.includes(name);
  return Type.Object(properties, { additionalProperties: open, ...facts.options });
}

/** The whole ODCS v3 document in one edition. */
export function odcsDocumentSchema(edition: OdcsEdition, apiVersions: readonly string[]): Record<string, unknown> {
  const objects = objectsOf(edition);
  const team = {
    object: ref("Team"),
    list: Type.Array(ref("TeamMember")),
    "object or list": Type.Unsafe({ if: { type: "array" }, then: { items: ref("TeamMember") }, else: ref("Team") }),
  }[edition.team];
  return {
    ...Type.Object(
      {
        version: Str,
        kind: Type.Literal("DataContract"),
        apiVersion: Type.Union(apiVersions.map((v) => Type.Literal(v))),
        id: Str,
        name: opt(Str),
        tenant: opt(Str),
        tags: opt(Strings),
        status: edition.statusOptional ? opt(Str) : Str,
        servers: opt(Type.Array(ref("Server"))),
        dataProduct: opt(Str),
        // The one object of the head the standard leaves open.
        description: opt(
          Type.Object({
            usage: opt(Str), purpose: opt(Str), limitations: opt(Str), authoritativeDefinitions: opt(Type.Array(ref("AuthoritativeDefinition"))),
            customProperties: opt(Type.Array(ref("CustomProperty"))),
          }),
        ),
        domain: opt(Str),
        schema: opt(Type.Array(ref("SchemaObject"))),
        support: opt(Type.Array(ref("SupportItem"))),
        price: opt(ref("Pricing")),
        team: opt(team),
        roles: opt(Type.Array(ref("Role"))),
        slaDefaultElement: opt(Str),
        slaProperties: opt(Type.Array(ref("SlaProperty"))),
        authoritativeDefinitions: opt(Type.Array(ref("AuthoritativeDefinition"))),
        customProperties: opt(Type.Array(ref("CustomProperty"))),
        contractCreatedTs: opt(Type.String({ format: "date-time" })),
        ...Object.fromEntries(Object.entries(edition.documentAdds ?? {}).map(([key, schema]) => [key, opt(schema)])),
      },
      { additionalProperties: false },
    ),
    $defs: Object.fromEntries(ODCS_OBJECTS.map((name) => [name, definition(edition, name, objects[name])])),
  };
}
