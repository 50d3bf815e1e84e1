import { Type, type TObject, type TProperties, type TSchema } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../platform/config.js";
import { pageWindow, sendLimitedPage } from "../../platform/http/paging.js";
import { errors, FromQuery, IdParams, NoContent, PageQuery, SafeText } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import type { ListFilter } from "./resource-repository.js";
import { etagOfJson, tagListMatches, type Document, type DocumentService, type Preconditions } from "./document-service.js";
import { withMembers } from "../../platform/objects.js";
import { pagePath, type PageKind } from "../../platform/http/page-paths.js";

export interface DocumentRoutesOptions<D extends Document> {
  /** Plural path segment under /api, e.g. `teams`; the web app's pages of the kind have the same. */
  plural: PageKind;
  /** Singular noun for summaries, e.g. `team`. */
  noun: string;
  tag: string;
  schema: TObject;
  service: DocumentService<D>;
  config: Config;
  /** Extra list filters beyond paging, and how they map to the repository filter. */
  filters?: TProperties;
  toFilter?: (query: Record<string, string | undefined>) => Omit<ListFilter, "offset" | "limit">;
  /** Query parameters of GET one that choose another representation (e.g. `format=odcs`). */
  readQuery?: TProperties;
  /** Query parameters a PUT accepts, passed to the service as write options. */
  writeQuery?: TProperties;
  /** The representation GET one answers with; the stored document when absent. */
  present?: (doc: D, query: Record<string, string | undefined>) => unknown;
  /** Ids may contain `/` (hierarchical tags): the id is then the rest of the path. */
  idSchema?: TSchema;
  /** The id as stored and compared (tags: NFC), applied to the id in the path. */
  normalizeId?: (id: string) => string;
}

type OneParams = FastifyRequest<{ Params: { id?: string; "*"?: string } }>;

/**
 * Answers with documents' JSON text as stored. Fastify sends a string as it is, so the route's
 * response schema documents the answer without serializing it again: a document comes back with
 * its members in the order they were sent, and a big one is not parsed and rendered again to be
 * read (docs/product.md §4, documents are returned as sent).
 */
/** What the path's id schema (ResourceId) accepts. */
const VALID_ID = /^[^/\u0000]{1,256}$/u;

export function sendStored(reply: FastifyReply, json: string): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}

/** The request's conditional headers, for the service to judge inside its transaction. */
export function preconditions(request: FastifyRequest): Preconditions {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(",") : value;
  };
  return { ifMatch: header("if-match"), ifNoneMatch: header("if-none-match") };
}

export const ConditionalHeaders = Type.Object({
  "if-match": Type.Optional(Type.String({ description: "Change only the version with this entity tag (from ETag); 412 otherwise." })),
  "if-none-match": Type.Optional(Type.String({ description: "`*`: create only; 412 when the id exists." })),
});

/** PUT-upsert, GET one, GET list and DELETE for a catalog document (docs/product.md §3). */
export function documentRoutes<D extends Document>(app: App, o: DocumentRoutesOptions<D>): void {
  const base = `/api/${o.plural}`;
  const htmlUrl = (id: string) => o.config.appUrl + pagePath(o.plural, id);
  const one = o.idSchema ? `${base}/*` : `${base}/:id`;
  const params = o.idSchema ? Type.Object({ "*": o.idSchema }) : IdParams;
  const rawIdOf = (request: OneParams) => (o.idSchema ? request.params["*"]! : request.params.id!);
  const idOf = (request: OneParams) => (o.normalizeId ? o.normalizeId(rawIdOf(request)) : rawIdOf(request));
  // The query parameters of GET one that ask for another representation than the stored document.
  const representations = o.present ? Object.keys(o.readQuery ?? {}) : [];

  app.get(
    base,
    {
      schema: {
        tags: [o.tag],
        summary: `List ${o.plural}`,
        querystring: Type.Object({
          ...PageQuery,
          ...FromQuery,
          q: Type.Optional(SafeText({ maxLength: 200, description: "Case-insensitive text search in id, title and description." })),
          ...o.filters,
        }),
        response: { 200: Type.Array(o.schema), ...errors(403) },
      },
    },
    async (request, reply) => {
      const query = request.query as Record<string, unknown> & { p?: string; pageSize?: string; from?: string };
      const window = pageWindow(query);
      const filter = { q: query.q as string | undefined, ...o.toFilter?.(query as Record<string, string | undefined>) };
      const { rows, cut } = await o.service.listStored(principalOf(request), withMembers(filter, { offset: window.offset, limit: window.size + 1 }));
      return sendStored(reply, `[${sendLimitedPage(request, reply, rows, window, cut).map((row) => row.json).join(",")}]`);
    },
  );

  app.get(
    one,
    {
      schema: {
        tags: [o.tag],
        summary: `Read a ${o.noun}`,
        description: "Answers an ETag; with If-None-Match naming it, 304 without a body.",
        params,
        ...(o.readQuery ? { querystring: Type.Object(o.readQuery) } : {}),
        response: { 200: o.schema, 304: Type.Null({ description: "Not modified" }), ...errors(404) },
      },
    },
    async (request: OneParams, reply) => {
      const stored = await o.service.getStored(principalOf(request), idOf(request));
      const etag = etagOfJson(stored.json);
      reply.header("etag", etag);
      const ifNoneMatch = request.headers["if-none-match"];
      if (typeof ifNoneMatch === "string" && tagListMatches(ifNoneMatch, etag)) return reply.code(304).send();
      const query = request.query as Record<string, string | undefined>;
      const another = representations.some((name) => query[name] !== undefined);
      return another ? o.present!(stored.doc, query) : sendStored(reply, stored.json);
    },
  );

  // Runs before the path is validated: an id the path's schema will refuse (a NUL, too long) is left to that 400.
  const authorizeBeforeBody = async (request: FastifyRequest): Promise<void> => {
    const id = idOf(request as unknown as OneParams);
    if (request.principal && VALID_ID.test(id)) await o.service.authorizeBeforeBody(request.principal, id);
  };

  app.put(
    one,
    {
      schema: {
        tags: [o.tag],
        summary: `Create or update a ${o.noun}`,
        description:
          "Upsert with a client-chosen id. Answers 200 whether it created or updated, with the new ETag. The body may be JSON or YAML (application/yaml).",
        params,
        headers: ConditionalHeaders,
        ...(o.writeQuery ? { querystring: Type.Object(o.writeQuery) } : {}),
        body: o.schema,
        response: { 200: o.schema, ...errors(403, 409, 412, 413, 415, 422) },
      },
      config: { yamlBody: true },
      // Refused before the body is read when the stored document already decides it.
      onRequest: authorizeBeforeBody,
    },
    async (request: OneParams, reply) => {
      const options = (o.writeQuery ? request.query : {}) as Record<string, string | undefined>;
      const { json, etag } = await o.service.put(principalOf(request), idOf(request), request.body as Record<string, unknown>, preconditions(request), options);
      reply.header("location-html", htmlUrl(idOf(request)));
      reply.header("etag", etag);
      return sendStored(reply, json);
    },
  );

  app.delete(
    one,
    {
      schema: {
        tags: [o.tag],
        summary: `Delete a ${o.noun}`,
        params,
        headers: Type.Pick(ConditionalHeaders, ["if-match"]),
        response: { 204: NoContent, ...errors(403, 404, 409, 412) },
      },
    },
    async (request: OneParams, reply) => {
      await o.service.delete(principalOf(request), idOf(request), { ifMatch: preconditions(request).ifMatch });
      return reply.code(204).send(null);
    },
  );
}
