import { Type } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "../platform/auth.js";
import { principalOf, type App } from "../platform/http/types.js";
import { SafeText } from "../platform/http/shapes.js";
import { resourceTypes, schemas, serviceProviderConfig } from "./discovery.js";
import { SCIM_CONTENT_TYPE, scimErrorHandler, scimNotFound } from "./errors.js";
import { project, type Projection } from "./projection.js";
import { listResponse, searchRequest, type ListQuery as ScimListQuery } from "./resources.js";
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

/**
 * A discovery endpoint of RFC 7644 §4 at `path`: all of `items` as a ListResponse, and one by its
 * id at `/:param` (a SCIM 404 naming it `what` for an id it does not have).
 */
function discoveryEndpoints(scim: App, path: string, items: () => Array<{ id: string }>, one: { param: string; maxLength: number; what: string }, summaries: { all: string; one: string }): void {
  const resource = { tags, description };
  scim.get(path, { schema: { ...resource, summary: summaries.all } }, async (_request, reply) => {
    const all = items();
    return send(reply, 200, { schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: all.length, startIndex: 1, itemsPerPage: all.length, Resources: all });
  });
  const params = Type.Object({ [one.param]: SafeText({ maxLength: one.maxLength }) });
  scim.get(`${path}/:${one.param}`, { schema: { ...resource, summary: summaries.one, params } }, async (request, reply) => {
    const id = (request.params as Record<string, string>)[one.param];
    const item = items().find((candidate) => candidate.id === id);
    if (!item) throw scimNotFound(one.what, id);
    return send(reply, 200, item);
  });
}

/** What a SCIM resource type's service answers (users.ts, groups.ts). */
interface ResourceService {
  list(p: Principal, query: ScimListQuery): Promise<object>;
  all(p: Principal): Promise<object[]>;
  get(p: Principal, id: string): Promise<object>;
  create(p: Principal, body: unknown): Promise<Record<string, unknown>>;
  replace(p: Principal, id: string, body: unknown, ifMatch?: string): Promise<object>;
  patch(p: Principal, id: string, body: unknown, ifMatch?: string): Promise<object>;
  delete(p: Principal, id: string, ifMatch?: string): Promise<void>;
}

/**
 * The endpoints of one SCIM resource type at `path` (RFC 7644 §3): list and filter, create,
 * search, and get, replace, change and delete one; `words` name it in their summaries.
 */
function resourceEndpoints(scim: App, path: string, service: ResourceService, words: { one: string; many: string; patch: string; delete: string }): void {
  const resource = { tags, description };
  scim.get(path, { schema: { ...resource, summary: `List or find ${words.many}`, querystring: ListQuery } }, async (request, reply) =>
    send(reply, 200, await service.list(principalOf(request), request.query)),
  );
  scim.post(path, { schema: { ...resource, summary: `Create a ${words.one}`, querystring: ResourceQuery } }, async (request, reply) => {
    const created = await service.create(principalOf(request), request.body);
    return send(reply.header("location", (created.meta as { location: string }).location), 201, created, request.query);
  });
  scim.post(`${path}/.search`, { schema: { ...resource, summary: `Find ${words.many} (a SearchRequest in the body)` } }, async (request, reply) =>
    send(reply, 200, listResponse(await service.all(principalOf(request)), searchRequest(request.body))),
  );
  scim.get(`${path}/:id`, { schema: { ...resource, summary: `Get a ${words.one}`, params: IdParams, querystring: ResourceQuery } }, async (request, reply) =>
    send(reply, 200, await service.get(principalOf(request), request.params.id), request.query),
  );
  scim.put(`${path}/:id`, { schema: { ...resource, summary: `Replace a ${words.one}`, params: IdParams, querystring: ResourceQuery } }, async (request, reply) =>
    send(reply, 200, await service.replace(principalOf(request), request.params.id, request.body, ifMatch(request)), request.query),
  );
  scim.patch(`${path}/:id`, { schema: { ...resource, summary: words.patch, params: IdParams, querystring: ResourceQuery } }, async (request, reply) =>
    send(reply, 200, await service.patch(principalOf(request), request.params.id, request.body, ifMatch(request)), request.query),
  );
  scim.delete(`${path}/:id`, { schema: { ...resource, summary: words.delete, params: IdParams } }, async (request, reply) => {
    await service.delete(principalOf(request), request.params.id, ifMatch(request));
    return reply.code(204).send();
  });
}

/** /api/scim/v2: provisioning by the organization's identity provider (docs/identity.md). */
export function scimRoutes(api: App, users: ScimUserService, groups: ScimGroupService, baseUrl: string): void {
  api.register(async (scim: App) => {
    scim.setErrorHandler(scimErrorHandler);
    const base = "/api/scim/v2";
    const resource = { tags, description };

    scim.get(`${base}/ServiceProviderConfig`, { schema: { ...resource, summary: "What this SCIM service supports" } }, async (_request, reply) => send(reply, 200, serviceProviderConfig(baseUrl)));
    discoveryEndpoints(scim, `${base}/ResourceTypes`, () => resourceTypes(baseUrl), { param: "resourceType", maxLength: 64, what: "Resource type" }, { all: "The SCIM resource types", one: "One SCIM resource type" });
    discoveryEndpoints(scim, `${base}/Schemas`, () => schemas(baseUrl), { param: "schemaId", maxLength: 256, what: "Schema" }, { all: "The SCIM schemas", one: "One SCIM schema" });

    resourceEndpoints(scim, `${base}/Users`, users, {
      one: "user",
      many: "users",
      patch: "Change a user (active: false deprovisions them)",
      delete: "Delete a user (deprovisions them)",
    });
    resourceEndpoints(scim, `${base}/Groups`, groups, { one: "group", many: "groups", patch: "Change a group's name or members", delete: "Delete a group" });
    scim.post(`${base}/.search`, { schema: { ...resource, summary: "Find users and groups together (a SearchRequest in the body)" } }, async (request, reply) => {
      const p = principalOf(request);
      const query = searchRequest(request.body);
      return send(reply, 200, listResponse([...(await users.all(p)), ...(await groups.all(p))], query));
    });
  });
}
