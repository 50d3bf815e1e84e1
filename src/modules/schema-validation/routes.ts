import { invalid } from "../../platform/errors.js";
import { errors } from "../../platform/http/shapes.js";
import type { App } from "../../platform/http/types.js";
import { ParsedSchemaSchema, SchemaObjectSchema } from "../datacontracts/shapes.js";
import { checkSchema, parseSchemaAhead } from "../datacontracts/service.js";

export function schemaRoutes(app: App): void {
  app.post(
    "/api/schemas/validate",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "Validate a schema without storing it",
        description: "Answers 200 with the normalized models, or 422 with one violation per problem (with line and column for text).",
        body: SchemaObjectSchema,
        response: { 200: ParsedSchemaSchema, ...errors(413, 415, 422, 429) },
      },
    },
    async (request) => {
      await parseSchemaAhead(request.body, "");
      const check = checkSchema(request.body, "");
      if (!check.ok) throw invalid("The schema is not valid.", check.violations);
      return check.parsed;
    },
  );
}
