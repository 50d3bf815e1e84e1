import type { FastifyReply, FastifyRequest } from "fastify";

/** Items per page when the query names no `pageSize`. */
export const DEFAULT_PAGE_SIZE = 1000;

/** The paging parameters as the query string gave them (validated as digits by PageQuery). */
export interface PageParams {
  p?: string;
  pageSize?: string;
  from?: string;
}

export interface PageWindow {
  page: number;
  size: number;
  offset: number;
  /** True when the page starts at `from`, a position a byte-limited page linked to. */
  fromLink: boolean;
}

export function pageWindow(query: PageParams): PageWindow {
  const page = query.p === undefined ? 0 : Number(query.p);
  const size = query.pageSize === undefined ? DEFAULT_PAGE_SIZE : Number(query.pageSize);
  if (query.from !== undefined) return { page, size, offset: Number(query.from), fromLink: true };
  return { page, size, offset: page * size, fromLink: false };
}

/**
 * Like `sendPage`, for lists whose pages also end at a byte limit (`cut`). A page that ended
 * early cannot be continued by page number, so its `Link` names the position of the next item
 * (`from`), and so do the pages after it.
 */
export function sendLimitedPage<T>(request: FastifyRequest, reply: FastifyReply, rows: T[], window: PageWindow, cut: boolean): T[] {
  if (!cut && !window.fromLink) return sendPage(request, reply, rows, window.size, window.page);
  if (!cut && rows.length <= window.size) return rows;
  const kept = cut ? rows : rows.slice(0, window.size);
  const url = new URL(request.url, "http://steward.invalid");
  url.searchParams.delete("p");
  url.searchParams.set("from", String(window.offset + kept.length));
  reply.header("link", `<${url.pathname}${url.search}>; rel="next"`);
  return kept;
}

/**
 * The answer of a paged list: the rows `fetch` gives for the query's page, asked for one more than
 * the page holds, sent as `sendPage` sends them.
 */
export async function answerPage<T>(request: FastifyRequest, reply: FastifyReply, query: PageParams, fetch: (offset: number, limit: number) => Promise<T[]>): Promise<T[]> {
  const { page, size, offset } = pageWindow(query);
  return sendPage(request, reply, await fetch(offset, size + 1), size, page);
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
