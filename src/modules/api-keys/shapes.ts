import { Type } from "@sinclair/typebox";
import { ResourceId, SafeText } from "../../platform/http/shapes.js";

const Scope = Type.Unsafe<"organization" | "team" | "team_read">({
  type: "string",
  enum: ["organization", "team", "team_read"],
  description: "`organization`: everything, keys included. `team`: reads everything, changes what its team owns. `team_read`: reads everything, changes nothing.",
});

export const ApiKeyInputSchema = Type.Object(
  {
    displayName: Type.Optional(SafeText({ minLength: 1, maxLength: 200, description: "Defaults to a name with the scope, team and creation date." })),
    scope: Scope,
    teamId: Type.Optional(Type.Union([ResourceId, Type.Null()], { description: "Required for scopes team and team_read." })),
    expiresAt: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: "ISO 8601 date-time or date (00:00 UTC). Returned as sent." }),
    ),
  },
  { title: "ApiKeyInput" },
);

export const ApiKeySchema = Type.Object(
  {
    organizationApiKeyId: Type.String({ format: "uuid", description: "The key's id, as the reference product names it." }),
    id: Type.String({ format: "uuid", description: "The same value as organizationApiKeyId." }),
    displayName: Type.String(),
    scope: Scope,
    teamId: Type.Union([Type.String(), Type.Null()]),
    expiresAt: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: "date-time" }),
    lastUsedAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
    revokedAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description: "When it was revoked; revoked keys stay listed." }),
    revokedBy: Type.Union([Type.String(), Type.Null()], { description: "Who revoked it: `api-key:<id>` or `user:<id>`." }),
  },
  { title: "ApiKey" },
);

export const CreatedApiKeySchema = Type.Composite(
  [ApiKeySchema, Type.Object({ key: Type.String({ description: "The secret. Shown this once; store it now." }) })],
  { title: "CreatedApiKey" },
);
