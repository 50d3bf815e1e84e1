import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { Config } from "../../platform/config.js";
import { errors, IdParams, ResourceId } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import { ConditionalHeaders, documentRoutes, preconditions } from "../catalog/document-routes.js";
import { ownerFilter } from "../catalog/owned-documents.js";
import { TagId } from "../tags/shapes.js";
import { normalizeTagId } from "../tags/tag-ids.js";
import type { AssetService } from "./service.js";
import { AssetSchema } from "./shapes.js";

const AssignedTags = Type.Array(Type.String(), { title: "AssetTags", description: "Tags assigned to the asset in Steward." });
const TagParams = Type.Object({ id: ResourceId, "*": TagId });

export function assetRoutes(app: App, assets: AssetService, config: Config): void {
  documentRoutes(app, { plural: "assets", noun: "asset", tag: "assets", schema: AssetSchema, service: assets, config, ...ownerFilter });

  app.get(
    "/api/assets/:id/assigned-tags",
    { schema: { tags: ["assets"], summary: "List the tags assigned to an asset", params: IdParams, response: { 200: AssignedTags, ...errors(404) } } },
    async (request) => assets.assignedTags(principalOf(request), request.params.id),
  );
  // Tag ids may contain `/`, so the tag is the rest of the path.
  for (const [method, assign] of [["PUT", true], ["DELETE", false]] as const) {
    app.route({
      method,
      url: "/api/assets/:id/assigned-tags/*",
      schema: {
        tags: ["assets"],
        summary: assign ? "Assign a tag to an asset" : "Remove an assigned tag from an asset",
        description:
          "Answers the asset's assigned tags afterwards, with the asset's new ETag. An asset that does not exist is a 422, as in the reference product. " +
          "With If-Match, only the version of the asset with that ETag is changed (412 otherwise).",
        params: TagParams,
        headers: Type.Pick(ConditionalHeaders, ["if-match"]),
        response: { 200: AssignedTags, ...errors(403, 412, 413, 422) },
      },
      handler: async (request: FastifyRequest<{ Params: { id: string; "*": string } }>, reply) => {
        const { tags, etag } = await assets.changeAssignedTag(principalOf(request), request.params.id, normalizeTagId(request.params["*"]), assign, {
          ifMatch: preconditions(request).ifMatch,
        });
        reply.header("etag", etag);
        return tags;
      },
    });
  }
}
