import { Type } from "@sinclair/typebox";
import { answerPage } from "../../platform/http/paging.js";
import { errors, IdParams, NoContent, PageQuery } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import type { ApiKeyService } from "./service.js";
import { ApiKeyInputSchema, ApiKeySchema, CreatedApiKeySchema } from "./shapes.js";

export function apiKeyRoutes(app: App, apiKeys: ApiKeyService): void {
  app.get(
    "/api/api-keys",
    {
      schema: {
        tags: ["api-keys"],
        summary: "List API keys (never their secrets)",
        description: "Oldest first, revoked keys included; a `Link` header names the next page when there is one.",
        querystring: Type.Object(PageQuery),
        response: { 200: Type.Array(ApiKeySchema), ...errors(403) },
      },
    },
    async (request, reply) => answerPage(request, reply, request.query, (offset, limit) => apiKeys.list(principalOf(request), { offset, limit })),
  );

  app.post(
    "/api/api-keys",
    {
      schema: {
        tags: ["api-keys"],
        summary: "Create an API key",
        description: "The response carries the secret in `key`. It is shown this once and cannot be read again.",
        body: ApiKeyInputSchema,
        response: { 201: CreatedApiKeySchema, ...errors(403, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const created = await apiKeys.create(principalOf(request), request.body);
      return reply.code(201).header("location", `/api/api-keys/${created.id}`).header("cache-control", "no-store").send(created);
    },
  );

  app.get(
    "/api/api-keys/:id",
    { schema: { tags: ["api-keys"], summary: "Read an API key's metadata (never its secret)", params: IdParams, response: { 200: ApiKeySchema, ...errors(403, 404) } } },
    async (request) => apiKeys.get(principalOf(request), request.params.id),
  );

  app.delete(
    "/api/api-keys/:id",
    {
      schema: {
        tags: ["api-keys"],
        summary: "Revoke an API key",
        description: "Takes effect on the very next request made with the key.",
        params: IdParams,
        response: { 204: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      await apiKeys.revoke(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
