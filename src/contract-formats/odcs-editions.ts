/**
 * The editions of ODCS v3 Steward validates, as data. 3.1.0 is the standard as odcs-shapes.ts
 * writes it; 3.0.x is 3.1.0 minus what 3.1 added and tightened, read from the official 3.0.2
 * schema. A document is judged by the edition its `apiVersion` names, as the official schema of
 * that edition judges it.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import {
  ContextSchema, LOGICAL_TYPES, objectRef, OPERATORS, QUALITY_KINDS, SERVER_TYPES, TYPE_OPTIONS,
  type OdcsObject, type QualityKinds, type ServerTypes, type TypeOptions,
} from "./odcs-shapes.js";

export interface OdcsEdition {
  readonly name: string;
  readonly apiVersions: readonly string[];
  /** Every element may carry a stable `id`. */
  readonly stableIds: boolean;
  /** Objects that take members the standard does not name; every other object is closed. */
  readonly open: readonly OdcsObject[];
  /** Members of 3.1.0 an object does not have in this edition (beyond `id`). */
  readonly lacks: Partial<Record<OdcsObject, readonly string[]>>;
  /** Required members, where they differ from 3.1.0's. */
  readonly requires: Partial<Record<OdcsObject, string[]>>;
  readonly team: "list" | "object or list";
  readonly logicalTypes: readonly string[];
  readonly typeOptions: TypeOptions;
  readonly serverTypes: ServerTypes;
  readonly quality: {
    readonly kinds: QualityKinds;
    /** A rule without `type` is held to the library rule's requirements. */
    readonly untypedIsLibrary: boolean;
    /** A rule that names a `metric` is held to them, whatever its type. */
    readonly metricMakesLibrary: boolean;
  };
  /** `items` may hold nested properties whatever their logicalType. */
  readonly itemPropertiesOfAnyType: boolean;
  /** Members an object has in this edition beyond 3.1.0's. */
  readonly adds?: Partial<Record<OdcsObject, Record<string, TSchema>>>;
  /** Members of the contract itself beyond 3.1.0's. */
  readonly documentAdds?: Record<string, TSchema>;
  /** A contract may leave out `status`. */
  readonly statusOptional?: boolean;
  /** The pattern of a relationship's reference, when it differs from 3.1.0's. */
  readonly referencePattern?: string;
  /** Options a logicalType requires whenever `logicalTypeOptions` is given. */
  readonly requiredOptions?: Readonly<Record<string, readonly string[]>>;
  /**
   * Properties of logicalType `map` describe their keys and values in `map`; the edition's schema
   * asks for `map` also on a property that names no logicalType at all.
   */
  readonly maps?: boolean;
}

export const ODCS_3_1: OdcsEdition = {
  name: "3.1.0",
  apiVersions: ["v3.1.0"],
  stableIds: true,
  open: [],
  lacks: {},
  requires: {},
  team: "object or list",
  logicalTypes: LOGICAL_TYPES,
  typeOptions: TYPE_OPTIONS,
  serverTypes: SERVER_TYPES,
  quality: { kinds: QUALITY_KINDS, untypedIsLibrary: false, metricMakesLibrary: true },
  itemPropertiesOfAnyType: false,
};

const Str = Type.String();
const FileFormat = Type.Union(["parquet", "delta", "json", "csv"].map((f) => Type.Literal(f)));
const Delimiter = Type.Union([Type.Literal("new_line"), Type.Literal("array")]);
/** 3.0 wrote an exclusive bound as a flag on `minimum`/`maximum`; 3.1 gives the bound itself. */
const BOOLEAN_BOUNDS = { exclusiveMinimum: Type.Boolean(), exclusiveMaximum: Type.Boolean() };
const { hive: _hive, impala: _impala, zen: _zen, ...SERVER_TYPES_30 } = SERVER_TYPES;
const { stream: _stream, ...CUSTOM_SERVER_30 } = SERVER_TYPES.custom![0];

export const ODCS_3_0: OdcsEdition = {
  name: "3.0.2",
  apiVersions: ["v3.0.0", "v3.0.1", "v3.0.2"],
  stableIds: false,
  open: ["AuthoritativeDefinition", "CustomProperty", "Role", "SupportItem", "Pricing", "SlaProperty", "TeamMember", "Server", "DataQuality"],
  lacks: {
    AuthoritativeDefinition: ["description"],
    CustomProperty: ["description"],
    SupportItem: ["customProperties"],
    SlaProperty: ["description", "scheduler", "schedule"],
    TeamMember: ["tags", "customProperties", "authoritativeDefinitions"],
    SchemaObject: ["relationships"],
    SchemaProperty: ["relationships"],
    SchemaItemProperty: ["relationships"],
  },
  requires: { SupportItem: ["channel", "url"], CustomProperty: [], TeamMember: [] },
  team: "list",
  logicalTypes: LOGICAL_TYPES.filter((t) => t !== "timestamp" && t !== "time"),
  typeOptions: TYPE_OPTIONS.filter(([types]) => !types.includes("timestamp")).map(([types, options]) => [
    types,
    types.some((t) => t === "date" || t === "integer" || t === "number") ? { ...options, ...BOOLEAN_BOUNDS } : options,
  ]),
  serverTypes: {
    ...SERVER_TYPES_30,
    azure: [{ ...SERVER_TYPES.azure![0], format: FileFormat, delimiter: Delimiter }, SERVER_TYPES.azure![1]],
    s3: [{ ...SERVER_TYPES.s3![0], format: FileFormat, delimiter: Delimiter }, SERVER_TYPES.s3![1]],
    sftp: [{ ...SERVER_TYPES.sftp![0], format: FileFormat, delimiter: Delimiter }, SERVER_TYPES.sftp![1]],
    duckdb: [{ ...SERVER_TYPES.duckdb![0], schema: Type.Integer() }, SERVER_TYPES.duckdb![1]],
    custom: [CUSTOM_SERVER_30, []],
  },
  quality: {
    kinds: {
      // 3.0 named library checks by `rule`, with any comparisons or none; `metric` came with 3.1.
      library: { members: { rule: Str, ...OPERATORS }, required: ["rule"], oneComparison: false },
      sql: { members: { query: Str }, required: ["query"], oneComparison: false },
      custom: QUALITY_KINDS.custom,
    },
    untypedIsLibrary: true,
    metricMakesLibrary: false,
  },
  itemPropertiesOfAnyType: true,
};

/** A network port: a number, or text such as a variable `${DB_PORT}` resolved where the contract is used. */
const Port = Type.Union([Type.Integer(), Str]);
const withPort = (members: Record<string, TSchema>) => ("port" in members ? { ...members, port: Port } : members);
const ENCODED = ["kinesis", "azure", "kafka", "glue", "custom", "local", "sftp", "s3"];
const SERVER_TYPES_32: ServerTypes = {
  ...Object.fromEntries(
    Object.entries(SERVER_TYPES).map(([type, [members, required]]) => [type, [withPort(ENCODED.includes(type) ? { ...members, encoding: Str } : members), required]]),
  ),
  athena: [{ ...SERVER_TYPES.athena![0], workgroup: Str }, ["schema"]],
  exasol: [{ host: Str, port: Port, schema: Str }, ["host"]],
  hana: [{ host: Str, port: Port, database: Str, schema: Str }, ["host"]],
  iceberg: [{ catalog: Str, catalogUrl: Type.String({ format: "uri" }), namespace: Str, warehouse: Str }, ["catalog", "catalogUrl"]],
  teradata: [{ host: Str, port: Port, database: Str }, ["host"]],
};
const ELEMENT_32 = { synonyms: Type.Array(objectRef("Synonym")), deprecated: Type.Boolean() };
const PROPERTY_32 = {
  ...ELEMENT_32,
  semanticType: Type.Union(["column", "measure", "dimension"].map((t) => Type.Literal(t))),
  // Entries must differ (the standard's uniqueItems); checked in linear time in odcs-rules.ts.
  enum: Type.Array(objectRef("EnumValue"), { minItems: 1 }),
  // Allowed by the standard only with logicalType map (or none); checked in odcs-rules.ts.
  map: Type.Object({ key: objectRef("SchemaItemProperty"), value: objectRef("SchemaItemProperty") }, { additionalProperties: false }),
};

/** 3.2.0: 3.1.0 with AI context, synonyms, enumerations, maps and vectors, ports as text and four more server types. */
export const ODCS_3_2: OdcsEdition = {
  ...ODCS_3_1,
  name: "3.2.0",
  apiVersions: ["v3.2.0"],
  logicalTypes: [...LOGICAL_TYPES, "map", "vector"],
  typeOptions: [
    ...TYPE_OPTIONS,
    [
      ["vector"],
      {
        dimensions: Type.Integer({ minimum: 1 }),
        elementType: Type.Union(["bfloat16", "binary", "float16", "float32", "float64", "int8", "uint8"].map((t) => Type.Literal(t))),
        distanceMetric: Type.Union(["cosine", "dotProduct", "euclidean", "hamming", "manhattan"].map((t) => Type.Literal(t))),
        embeddingModel: Str, embeddingModelVersion: Str, normalized: Type.Boolean(),
      },
    ],
  ],
  requiredOptions: { vector: ["dimensions"] },
  serverTypes: SERVER_TYPES_32,
  adds: {
    CustomProperty: { vendor: Str },
    SlaProperty: { authoritativeDefinitions: Type.Array(objectRef("AuthoritativeDefinition")), customProperties: Type.Array(objectRef("CustomProperty")) },
    SchemaObject: { ...ELEMENT_32, context: ContextSchema },
    SchemaProperty: PROPERTY_32,
    SchemaItemProperty: PROPERTY_32,
    RelationshipPropertyLevel: { id: Str },
    RelationshipSchemaLevel: { id: Str },
  },
  documentAdds: { context: ContextSchema },
  statusOptional: true,
  referencePattern:
    "^(?:[A-Za-z_][A-Za-z0-9_-]*(?:\\.[A-Za-z_][A-Za-z0-9_-]*)+|(?:(?:https?://)?[A-Za-z0-9._\\-/]+\\.ya?ml#)?/?[A-Za-z_][A-Za-z0-9_]*/[A-Za-z0-9_-]+(?:/[A-Za-z_][A-Za-z0-9_]*/[A-Za-z0-9_-]+)*)$",
  maps: true,
};

export const ODCS_EDITIONS: readonly OdcsEdition[] = [ODCS_3_2, ODCS_3_1, ODCS_3_0];
export const ODCS_API_VERSIONS = ODCS_EDITIONS.flatMap((e) => e.apiVersions);

/** The edition a document's `apiVersion` names; 3.1.0 when it names none Steward knows. */
export function editionOf(doc: Record<string, unknown>): OdcsEdition {
  return ODCS_EDITIONS.find((e) => e.apiVersions.includes(doc.apiVersion as string)) ?? ODCS_3_1;
}
