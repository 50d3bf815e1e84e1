import { Type, type Static } from "@sinclair/typebox";
import { OpenObject } from "../../platform/http/shapes.js";
import { Dcs09Schema, SchemaObjectSchema } from "../../contract-formats/dcs09.js";

export { SchemaObjectSchema };

/**
 * A data contract in any of the accepted formats (docs/product.md §4): ODCS v3 (`apiVersion`, `kind:
 * DataContract`), Data Contract Specification 1.x (`models`) or 0.9 (`info` + `schema`). The
 * format is detected per document and validated by its own rules (src/contract-formats), so the
 * body is an open object here; it is stored and returned exactly as sent.
 */
// No members declared: the serializer would write declared members first, and the document goes
// back member for member in the order it came.
export const DataContractSchema = OpenObject(
  {},
  {
    title: "DataContract",
    description: "An ODCS v3.0.x–3.1.0 document, a Data Contract Specification 1.x document, or a Data Contract Specification 0.9 document with a Schema object.",
  },
);

export type SchemaObject = Static<typeof SchemaObjectSchema>;
/** Any accepted format; the members of the Data Contract Specification 0.9 are typed for readers that know it. */
export type DataContract = Record<string, unknown> & { id: string } & Partial<Static<typeof Dcs09Schema>>;

const QualityRuleSchema = Type.Object(
  {
    type: Type.String({ description: "text, library, sql or custom" }),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    dimension: Type.Optional(Type.String()),
    severity: Type.Optional(Type.String()),
    metric: Type.Optional(Type.String()),
    arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    query: Type.Optional(Type.String()),
    engine: Type.Optional(Type.String()),
    implementation: Type.Optional(Type.Unknown()),
    comparison: Type.Optional(Type.Object({ operator: Type.String(), value: Type.Unknown() })),
    extra: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Members of the rule as written that none of the above holds (unit, dialect, a second comparison…)." })),
  },
  { title: "QualityRule", additionalProperties: true },
);

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
        key: Type.Optional(Self),
        dimensions: Type.Optional(Type.Integer({ description: "Length of a vector." })),
        symbols: Type.Optional(Type.Array(Type.String())),
        primaryKey: Type.Optional(Type.Boolean()),
        unique: Type.Optional(Type.Boolean()),
        classification: Type.Optional(Type.String()),
        enum: Type.Optional(Type.Array(Type.Unknown(), { description: "Allowed values: strings, numbers, booleans or null." })),
        minLength: Type.Optional(Type.Integer()),
        maxLength: Type.Optional(Type.Integer()),
        pattern: Type.Optional(Type.String()),
        precision: Type.Optional(Type.Integer()),
        scale: Type.Optional(Type.Integer()),
        quality: Type.Optional(Type.Array(QualityRuleSchema)),
        ref: Type.Optional(
          Type.String({
            description:
              "Names the entry of `definitions` that describes this field's type (a named Avro type, a JSON Schema $ref target or a DCS definition used more than once, or recursively); its nested fields are there.",
          }),
        ),
      },
      { additionalProperties: true },
    ),
  { $id: "NormalizedField" },
);

const Definitions = Type.Optional(
  Type.Array(FieldSchema, { description: "Types that fields refer to by `ref`, each described once; `name` is what `ref` names." }),
);

export const NormalizedModelSchema = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.String()),
    kind: Type.String({ description: "table, view, materialized_view, record or object" }),
    tests: Type.Optional(Type.Array(Type.String())),
    quality: Type.Optional(Type.Array(QualityRuleSchema)),
    fields: Type.Array(FieldSchema),
  },
  { title: "NormalizedModel", additionalProperties: true },
);

export const ParsedSchemaSchema = Type.Object(
  {
    type: Type.String({ description: "The schema type as stored (json-schema normalised to jsonschema), or odcs/dcs for a contract format's own models." }),
    detectedType: Type.String({ description: "The type it was parsed as: avro for an Avro record sent as jsonschema." }),
    models: Type.Array(NormalizedModelSchema),
    definitions: Definitions,
  },
  { title: "ParsedSchema" },
);

export const ContractModelsSchema = Type.Object(
  {
    format: Type.String({ description: "The contract's format: odcs, dcs (1.x) or dcs-0.9." }),
    models: Type.Array(NormalizedModelSchema, { description: "The models of every schema of the contract, in order." }),
    definitions: Definitions,
    schemas: Type.Array(ParsedSchemaSchema),
  },
  { title: "ContractModels" },
);
