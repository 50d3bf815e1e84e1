import { Type, type Static } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";
import { Tags } from "../teams/shapes.js";

const Bound = (description: string) => Type.Optional(Type.Number({ description }));

export const DefinitionSchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    owner: Type.String({ minLength: 1, description: "Id of the owning team." }),
    title: Type.Optional(Type.String({ description: "The business name, e.g. Customer Name." })),
    description: Type.Optional(Type.String()),
    type: Type.Optional(Type.String({ description: "Logical data type, as in ODCS: string, number, date, …" })),
    enum: Type.Optional(Type.Array(Type.String(), { description: "The values allowed." })),
    minLength: Bound("Shortest allowed text."),
    maxLength: Bound("Longest allowed text."),
    minimum: Bound("Smallest allowed number."),
    maximum: Bound("Largest allowed number."),
    exclusiveMinimum: Bound("Numbers must be greater than this."),
    exclusiveMaximum: Bound("Numbers must be less than this."),
    format: Type.Optional(Type.String({ examples: ["email", "uri", "uuid"] })),
    pattern: Type.Optional(Type.String({ description: "A regular expression values must match." })),
    example: Type.Optional(Type.String()),
    pii: Type.Optional(Type.Boolean({ description: "Whether values identify a person." })),
    classification: Type.Optional(Type.String({ examples: ["sensitive"] })),
    tags: Type.Optional(Tags),
  },
  { title: "Definition", description: "A business term with its logical type and constraints, reused by data contracts." },
);

export type Definition = Static<typeof DefinitionSchema> & { id: string };
