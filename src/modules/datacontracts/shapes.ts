import { Type, type Static } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";
import { SCHEMA_TYPES } from "../../schema-formats/index.js";
import { Custom, Links, Tags } from "../teams/shapes.js";

/** Structure only; the content of `specification` is checked by the parser of its type (src/schema-formats). */
export const SchemaObjectSchema = OpenObject(
  {
    type: Type.String({
      description: `One of ${SCHEMA_TYPES.join(", ")} (json-schema is accepted as jsonschema).`,
      examples: [...SCHEMA_TYPES],
    }),
    specification: Type.Unknown({
      description: "The schema: text (YAML for dbt, JSON for the others, anything for custom) or the same structure as JSON.",
    }),
  },
  { title: "Schema" },
);

export const DataContractSchema = OpenObject(
  {
    dataContractSpecification: Type.Optional(Type.String({ examples: ["0.9.3"] })),
    id: Type.Optional(ResourceId),
    info: OpenObject({
      title: Type.String({ minLength: 1 }),
      version: Type.String({ minLength: 1 }),
      owner: Type.String({ minLength: 1, description: "Id of the owning team." }),
      description: Type.Optional(Type.String()),
      status: Type.Optional(Type.String({ examples: ["draft", "active", "deprecated", "retired"] })),
    }),
    provider: Type.Optional(
      OpenObject({
        teamId: Type.Optional(Type.String()),
        dataProductId: Type.Optional(Type.String()),
        outputPortId: Type.Optional(Type.String()),
      }),
    ),
    servers: Type.Optional(Type.Unknown()),
    terms: Type.Optional(
      OpenObject({
        usage: Type.Optional(Type.String()),
        limitations: Type.Optional(Type.String()),
        billing: Type.Optional(Type.String()),
        noticePeriod: Type.Optional(Type.String()),
      }),
    ),
    models: Type.Optional(Type.Unknown()),
    schema: Type.Union([SchemaObjectSchema, Type.Array(SchemaObjectSchema, { minItems: 1 })], {
      description: "One schema or several.",
    }),
    examples: Type.Optional(Type.Unknown()),
    quality: Type.Optional(Type.Unknown()),
    tags: Type.Optional(Tags),
    links: Type.Optional(Links),
    custom: Type.Optional(Custom),
  },
  { title: "DataContract" },
);

export type SchemaObject = Static<typeof SchemaObjectSchema>;
export type DataContract = Static<typeof DataContractSchema> & { id: string };

const FieldSchema: ReturnType<typeof Type.Recursive> = Type.Recursive(
  (Self) =>
    Type.Object(
      {
        name: Type.String(),
        type: Type.String({ description: "Logical type: string, integer, number, boolean, date, time, timestamp, bytes, object, array, …" }),
        physicalType: Type.String({ description: "The type as the source format spells it." }),
        required: Type.Boolean(),
        description: Type.Optional(Type.String()),
        tests: Type.Optional(Type.Array(Type.String())),
        fields: Type.Optional(Type.Array(Self)),
        items: Type.Optional(Self),
        symbols: Type.Optional(Type.Array(Type.String())),
      },
      { additionalProperties: true },
    ),
  { $id: "NormalizedField" },
);

export const NormalizedModelSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.String()),
    kind: Type.String({ description: "table, view, materialized_view, record or object" }),
    tests: Type.Optional(Type.Array(Type.String())),
    fields: Type.Array(FieldSchema),
  },
  { title: "NormalizedModel", additionalProperties: true },
);

export const ParsedSchemaSchema = Type.Object(
  {
    type: Type.String({ description: "The schema type as stored (json-schema normalised to jsonschema)." }),
    detectedType: Type.String({ description: "The type it was parsed as: avro for an Avro record sent as jsonschema." }),
    models: Type.Array(NormalizedModelSchema),
  },
  { title: "ParsedSchema" },
);

export const ContractModelsSchema = Type.Object(
  {
    models: Type.Array(NormalizedModelSchema, { description: "The models of every schema of the contract, in order." }),
    schemas: Type.Array(ParsedSchemaSchema),
  },
  { title: "ContractModels" },
);
