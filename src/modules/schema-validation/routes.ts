import { Type } from "@sinclair/typebox";
import { modelToSchemaObject } from "../../contract-formats/to-odcs.js";
import { invalid } from "../../platform/errors.js";
import { errors } from "../../platform/http/shapes.js";
import type { App } from "../../platform/http/types.js";
import { ParsedSchemaSchema, SchemaObjectSchema } from "../datacontracts/shapes.js";
import { checkSchema, parseSchemaAhead } from "../datacontracts/service.js";
import type { Parsing } from "../../schema-formats/off-thread.js";

/**
 * The normalized models, or with format=odcs the ODCS `schema[]` objects in their place: one
 * object either way (a union would copy the NormalizedField schema, whose $id the serializer then
 * finds twice).
 */
const ValidateAnswer = Type.Object(
  {
    ...Type.Omit(ParsedSchemaSchema, ["models"]).properties,
    models: Type.Optional(ParsedSchemaSchema.properties.models),
    schema: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), { description: "With format=odcs: the ODCS v3.1.0 schema[] objects the models become." }),
    ),
  },
  { title: "ValidatedSchema" },
);

/** `parsing`: the application's parse limits and worker threads. */
export function schemaRoutes(app: App, parsing: Parsing): void {
  app.post(
    "/api/schemas/validate",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "Validate a schema without storing it",
        description:
          "Answers 200 with the normalized models (with format=odcs, the ODCS schema[] objects in their place), or 422 with one violation per problem (with line and column for text).",
        querystring: Type.Object({
          format: Type.Optional(Type.Union([Type.Literal("odcs")], { description: "odcs: the models as ODCS v3.1.0 schema[] objects." })),
        }),
        body: SchemaObjectSchema,
        response: { 200: ValidateAnswer, ...errors(400, 413, 415, 422, 429) },
      },
    },
    async (request) => {
      await parseSchemaAhead(request.body, "", parsing);
      const check = checkSchema(request.body, "", parsing.limits);
      if (!check.ok) throw invalid("The schema is not valid.", check.violations);
      if (request.query.format !== "odcs") return check.parsed;
      const { models, definitions: _definitions, ...parsed } = check.parsed;
      return { ...parsed, schema: models.map((model) => modelToSchemaObject(model, parsed.detectedType)) };
    },
  );
}
