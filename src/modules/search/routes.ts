import { sendPage } from "../../platform/http/paging.js";
import { errors } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import { badRequest } from "../../platform/errors.js";
import type { SearchService } from "./service.js";
import { MAX_SEARCH_PAGE_SIZE, SEARCH_PAGE_SIZE, SearchAnswerSchema, SearchQuerySchema } from "./shapes.js";

const tags = ["search"];

export function searchRoutes(app: App, search: SearchService): void {
  app.get(
    "/api/search",
    {
      schema: {
        tags,
        summary: "Search the catalog",
        description:
          "One ranked list over data products (with their output ports), data contracts (with the names and descriptions of their models and fields), teams, assets, tags, definitions and source systems of the caller's organization. Every word of `query` must match the start of a word.",
        querystring: SearchQuerySchema,
        response: { 200: SearchAnswerSchema, ...errors() },
      },
    },
    async (request, reply) => {
      const { query, resourceType, teamId, tag } = request.query;
      const page = request.query.p === undefined ? 0 : Number(request.query.p);
      const size = request.query.pageSize === undefined ? SEARCH_PAGE_SIZE : Number(request.query.pageSize);
      if (size < 1 || size > MAX_SEARCH_PAGE_SIZE) throw badRequest(`pageSize must be a whole number from 1 to ${MAX_SEARCH_PAGE_SIZE}.`);
      const results = await search.search(principalOf(request), { query, resourceType, teamId, tag, offset: page * size, limit: size + 1 });
      return { query, results: sendPage(request, reply, results, size, page) };
    },
  );
}
