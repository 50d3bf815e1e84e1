import { Type, type TObject, type TProperties, type TSchema } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { Config } from "../../platform/config.js";
import { pageWindow, sendPage } from "../../platform/http/paging.js";
import { errors, IdParams, NoContent, PageQuery, SafeText } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import type { ListFilter } from "./resource-repository.js";
import type { Document, DocumentService } from "./document-service.js";

export interface DocumentRoutesOptions<D extends Document> {
  /** Plural path segment under /api, e.g. `teams`. */
  plural: string;
  /** Singular noun for summaries, e.g. `team`. */
  noun: string;
  tag: string;
  schema: TObject;
  service: DocumentService<D>;
  config: Config;
  /** Extra list filters beyond paging, and how they map to the repository filter. */
  filters?: TProperties;
  toFilter?: (query: Record<string, string | undefined>) => Omit<ListFilter, "offset" | "limit">;
  /** Ids may contain `/` (hierarchical tags): the id is then the rest of the path. */
  idSchema?: TSchema;
}

type OneParams = FastifyRequest<{ Params: { id?: string; "*"?: string } }>;

/** PUT-upsert, GET one, GET list and DELETE for a catalog document (PRODUCT.md §3). */
export function documentRoutes<D extends Document>(app: App, o: DocumentRoutesOptions<D>): void {
  const base = `/api/${o.plural}`;
  const htmlUrl = (id: string) => `${o.config.appUrl}/${o.plural}/${encodeURIComponent(id)}`;
  const one = o.idSchema ? `${base}/*` : `${base}/:id`;
  const params = o.idSchema ? Type.Object({ "*": o.idSchema }) : IdParams;
  const idOf = (request: OneParams) => (o.idSchema ? request.params["*"]! : request.params.id!);

  app.get(
    base,
    {
      schema: {
        tags: [o.tag],
        summary: `List ${o.plural}`,
        querystring: Type.Object({
          ...PageQuery,
          q: Type.Optional(SafeText({ maxLength: 200, description: "Case-insensitive text search in id, title and description." })),
          ...o.filters,
        }),
        response: { 200: Type.Array(o.schema), ...errors(403) },
      },
    },
    async (request, reply) => {
      const query = request.query as Record<string, unknown> & { p?: string; pageSize?: string };
      const { page, size, offset } = pageWindow(query);
      const filter = { q: query.q as string | undefined, ...o.toFilter?.(query as Record<string, string | undefined>) };
      const rows = await o.service.list(principalOf(request), { ...filter, offset, limit: size + 1 });
      return sendPage(request, reply, rows, size, page);
    },
  );

  app.get(
    one,
    {
      schema: {
        tags: [o.tag],
        summary: `Read a ${o.noun}`,
        params,
        response: { 200: o.schema, ...errors(404) },
      },
    },
    async (request: OneParams) => o.service.get(principalOf(request), idOf(request)),
  );

  app.put(
    one,
    {
      schema: {
        tags: [o.tag],
        summary: `Create or update a ${o.noun}`,
        description: "Upsert with a client-chosen id. Answers 200 whether it created or updated.",
        params,
        body: o.schema,
        response: { 200: o.schema, ...errors(403, 409, 413, 415, 422) },
      },
    },
    async (request: OneParams, reply) => {
      const { doc } = await o.service.put(principalOf(request), idOf(request), request.body as Record<string, unknown>);
      reply.header("location-html", htmlUrl(idOf(request)));
      return doc;
    },
  );

  app.delete(
    one,
    {
      schema: {
        tags: [o.tag],
        summary: `Delete a ${o.noun}`,
        params,
        response: { 204: NoContent, ...errors(403, 404, 409) },
      },
    },
    async (request: OneParams, reply) => {
      await o.service.delete(principalOf(request), idOf(request));
      return reply.code(204).send(null);
    },
  );
}
