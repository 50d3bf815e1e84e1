import { Type } from "@sinclair/typebox";
import { ResourceId, SafeText } from "../../platform/http/shapes.js";

const Scope = Type.Union([Type.Literal("organization"), Type.Literal("team")]);

export const ApiKeyInputSchema = Type.Object(
  {
    displayName: SafeText({ minLength: 1, maxLength: 200 }),
    scope: Scope,
    teamId: Type.Optional(Type.Union([ResourceId, Type.Null()], { description: "Required for scope team." })),
    expiresAt: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: "ISO 8601 date-time or date (00:00 UTC). Returned as sent." }),
    ),
  },
  { title: "ApiKeyInput" },
);

export const ApiKeySchema = Type.Object(
  {
    id: Type.String(),
    displayName: Type.String(),
    scope: Scope,
    teamId: Type.Union([Type.String(), Type.Null()]),
    expiresAt: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: "date-time" }),
    lastUsedAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  },
  { title: "ApiKey" },
);

export const CreatedApiKeySchema = Type.Composite(
  [ApiKeySchema, Type.Object({ key: Type.String({ description: "The secret. Shown this once; store it now." }) })],
  { title: "CreatedApiKey" },
);
