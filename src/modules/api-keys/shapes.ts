import { Type } from "@sinclair/typebox";
import { ResourceId, SafeText } from "../../platform/http/shapes.js";

export const API_KEY_SCOPES = ["organization", "organization_read", "team", "team_read", "user", "user_read", "connector"] as const;

const Scope = Type.Unsafe<(typeof API_KEY_SCOPES)[number]>({
  type: "string",
  enum: [...API_KEY_SCOPES],
  description:
    "`organization`: everything, keys included. `organization_read`: reads everything, changes nothing. `team`: reads everything, changes what its team owns. " +
    "`team_read`: reads everything, changes nothing. `user`: acts as the person `userId` would in the web app (their role and teams); `user_read`: reads as them. " +
    "`connector`: reads everything and the feed, posts provisioning reports, reads and writes connector state; nothing else.",
});

export const ApiKeyInputSchema = Type.Object(
  {
    displayName: Type.Optional(SafeText({ minLength: 1, maxLength: 200, description: "Defaults to a name with the scope, team and creation date." })),
    scope: Scope,
    teamId: Type.Optional(Type.Union([ResourceId, Type.Null()], { description: "Required for scopes team and team_read." })),
    userId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 320 }), Type.Null()], {
        description: "Required for scopes user and user_read: the person's account id or email address; they must be a member of the organization.",
      }),
    ),
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
    userId: Type.Union([Type.String(), Type.Null()], { description: "The account id of the person a user or user_read key acts as." }),
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
