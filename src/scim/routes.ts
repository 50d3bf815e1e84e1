import { Type } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { principalOf, type App } from "../platform/http/types.js";
import { SafeText } from "../platform/http/shapes.js";
import { resourceTypes, schemas, serviceProviderConfig } from "./discovery.js";
import { SCIM_CONTENT_TYPE, scimErrorHandler, scimNotFound } from "./errors.js";
import { project, type Projection } from "./projection.js";
import { listResponse, searchRequest } from "./resources.js";
import type { ScimGroupService } from "./groups.js";
import type { ScimUserService } from "./users.js";

const tags = ["scim"];
/** RFC 7644 §3.9: which attributes an answer carries. */
const ProjectionQuery = {
  attributes: Type.Optional(Type.String({ maxLength: 2000 })),
  excludedAttributes: Type.Optional(Type.String({ maxLength: 2000 })),
};
const ResourceQuery = Type.Object(ProjectionQuery);
const ListQuery = Type.Object({
  filter: Type.Optional(Type.String({ maxLength: 2000 })),
  startIndex: Type.Optional(Type.Integer({ minimum: 1 })),
  count: Type.Optional(Type.Integer({ minimum: 0 })),
  sortBy: Type.Optional(Type.String({ maxLength: 500 })),
  sortOrder: Type.Optional(Type.String({ maxLength: 20 })),
  ...ProjectionQuery,
});
const IdParams = Type.Object({ id: SafeText({ minLength: 1, maxLength: 256 }) });
const description = "SCIM 2.0 (RFC 7644), authenticated by an organization-scoped API key sent as a bearer token; errors are SCIM error documents.";

/** Sends a resource or a list; a resource with the attributes `projection` leaves (its ETag is the whole resource's). */
function send(reply: FastifyReply, status: number, body: object, projection: Projection = {}) {
  const version = (body as { meta?: { version?: string } } | undefined)?.meta?.version;
  if (version) reply.header("etag", version);
  return reply.code(status).type(SCIM_CONTENT_TYPE).header("cache-control", "no-store").send(JSON.stringify(project(body, projection)));
}

const ifMatch = (request: FastifyRequest) => (typeof request.headers["if-match"] === "string" ? request.headers["if-match"] : undefined);

/** /api/scim/v2: provisioning by the organization's identity provider (docs/identity.md). */
export function scimRoutes(api: App, users: ScimUserService, groups: ScimGroupService, baseUrl: string): void {
  api.register(async (scim: App) => {
    scim.setErrorHandler(scimErrorHandler);
    const base = "/api/scim/v2";
    const resource = { tags, description };

    scim.get(`${base}/ServiceProviderConfig`, { schema: { ...resource, summary: "What this SCIM service supports" } }, async (_request, reply) => send(reply, 200, serviceProviderConfig(baseUrl)));
    scim.get(`${base}/ResourceTypes`, { schema: { ...resource, summary: "The SCIM resource types" } }, async (_request, reply) => {
      const types = resourceTypes(baseUrl);
      return send(reply, 200, { schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: types.length, startIndex: 1, itemsPerPage: types.length, Resources: types });
    });
    scim.get(`${base}/ResourceTypes/:resourceType`, { schema: { ...resource, summary: "One SCIM resource type", params: Type.Object({ resourceType: SafeText({ maxLength: 64 }) }) } }, async (request, reply) => {
      const type = resourceTypes(baseUrl).find((t) => t.id === request.params.resourceType);
      if (!type) throw scimNotFound("Resource type", request.params.resourceType);
      return send(reply, 200, type);
    });
    scim.get(`${base}/Schemas`, { schema: { ...resource, summary: "The SCIM schemas" } }, async (_request, reply) => {
      const all = schemas(baseUrl);
      return send(reply, 200, { schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: all.length, startIndex: 1, itemsPerPage: all.length, Resources: all });
    });
    scim.get(`${base}/Schemas/:schemaId`, { schema: { ...resource, summary: "One SCIM schema", params: Type.Object({ schemaId: SafeText({ maxLength: 256 }) }) } }, async (request, reply) => {
      const schema = schemas(baseUrl).find((s) => s.id === request.params.schemaId);
      if (!schema) throw scimNotFound("Schema", request.params.schemaId);
      return send(reply, 200, schema);
    });

    scim.get(`${base}/Users`, { schema: { ...resource, summary: "List or find users", querystring: ListQuery } }, async (request, reply) =>
      send(reply, 200, await users.list(principalOf(request), request.query)),
    );
    scim.post(`${base}/Users`, { schema: { ...resource, summary: "Create a user", querystring: ResourceQuery } }, async (request, reply) => {
      const user = await users.create(principalOf(request), request.body);
      return send(reply.header("location", (user.meta as { location: string }).location), 201, user, request.query);
    });
    scim.post(`${base}/Users/.search`, { schema: { ...resource, summary: "Find users (a SearchRequest in the body)" } }, async (request, reply) =>
      send(reply, 200, listResponse(await users.all(principalOf(request)), searchRequest(request.body))),
    );
    scim.get(`${base}/Users/:id`, { schema: { ...resource, summary: "Get a user", params: IdParams, querystring: ResourceQuery } }, async (request, reply) =>
      send(reply, 200, await users.get(principalOf(request), request.params.id), request.query),
    );
    scim.put(`${base}/Users/:id`, { schema: { ...resource, summary: "Replace a user", params: IdParams, querystring: ResourceQuery } }, async (request, reply) =>
      send(reply, 200, await users.replace(principalOf(request), request.params.id, request.body, ifMatch(request)), request.query),
    );
    scim.patch(`${base}/Users/:id`, { schema: { ...resource, summary: "Change a user (active: false deprovisions them)", params: IdParams, querystring: ResourceQuery } }, async (request, reply) =>
      send(reply, 200, await users.patch(principalOf(request), request.params.id, request.body, ifMatch(request)), request.query),
    );
    scim.delete(`${base}/Users/:id`, { schema: { ...resource, summary: "Delete a user (deprovisions them)", params: IdParams } }, async (request, reply) => {
      await users.delete(principalOf(request), request.params.id, ifMatch(request));
      return reply.code(204).send();
    });

    scim.get(`${base}/Groups`, { schema: { ...resource, summary: "List or find groups", querystring: ListQuery } }, async (request, reply) =>
      send(reply, 200, await groups.list(principalOf(request), request.query)),
    );
    scim.post(`${base}/Groups`, { schema: { ...resource, summary: "Create a group", querystring: ResourceQuery } }, async (request, reply) => {
      const group = await groups.create(principalOf(request), request.body);
      return send(reply.header("location", (group.meta as { location: string }).location), 201, group, request.query);
    });
    scim.post(`${base}/Groups/.search`, { schema: { ...resource, summary: "Find groups (a SearchRequest in the body)" } }, async (request, reply) =>
      send(reply, 200, listResponse(await groups.all(principalOf(request)), searchRequest(request.body))),
    );
    scim.get(`${base}/Groups/:id`, { schema: { ...resource, summary: "Get a group", params: IdParams, querystring: ResourceQuery } }, async (request, reply) =>
      send(reply, 200, await groups.get(principalOf(request), request.params.id), request.query),
    );
    scim.put(`${base}/Groups/:id`, { schema: { ...resource, summary: "Replace a group", params: IdParams, querystring: ResourceQuery } }, async (request, reply) =>
      send(reply, 200, await groups.replace(principalOf(request), request.params.id, request.body, ifMatch(request)), request.query),
    );
    scim.patch(`${base}/Groups/:id`, { schema: { ...resource, summary: "Change a group's name or members", params: IdParams, querystring: ResourceQuery } }, async (request, reply) =>
      send(reply, 200, await groups.patch(principalOf(request), request.params.id, request.body, ifMatch(request)), request.query),
    );
    scim.post(`${base}/.search`, { schema: { ...resource, summary: "Find users and groups together (a SearchRequest in the body)" } }, async (request, reply) => {
      const p = principalOf(request);
      const query = searchRequest(request.body);
      return send(reply, 200, listResponse([...(await users.all(p)), ...(await groups.all(p))], query));
    });
    scim.delete(`${base}/Groups/:id`, { schema: { ...resource, summary: "Delete a group", params: IdParams } }, async (request, reply) => {
      await groups.delete(principalOf(request), request.params.id, ifMatch(request));
      return reply.code(204).send();
    });
  });
}
