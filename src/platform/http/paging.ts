import type { FastifyReply, FastifyRequest } from "fastify";

export const MAX_PAGE_SIZE = 1000;

/** The paging parameters as the query string gave them (validated as digits by PageQuery). */
export interface PageParams {
  p?: string;
  pageSize?: string;
}

export function pageWindow(query: PageParams): { page: number; size: number; offset: number } {
  const page = query.p === undefined ? 0 : Number(query.p);
  const size = query.pageSize === undefined ? MAX_PAGE_SIZE : Number(query.pageSize);
  return { page, size, offset: page * size };
}

/**
 * Lists fetch one row more than the page holds to learn whether a next page exists; this trims
 * that row and announces the next page in a `Link` header.
 */
export function sendPage<T>(request: FastifyRequest, reply: FastifyReply, rows: T[], size: number, page: number): T[] {
  if (rows.length <= size) return rows;
  const url = new URL(request.url, "http://steward.invalid");
  url.searchParams.set("p", String(page + 1));
  reply.header("link", `<${url.pathname}${url.search}>; rel="next"`);
  return rows.slice(0, size);
}
