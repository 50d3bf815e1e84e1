/**
 * The addresses of the web app's page of one resource, `/<kind>/<id>`, built in one place for the
 * server's `location-html` headers (docs/product.md §3) and the web app's own links and API calls.
 * No imports: the web app bundles this file as it is.
 *
 * An id is one percent-encoded path segment (a tag's `/` becomes `%2F`). The ids `.` and `..` are
 * the exception: every URL parser takes them, and their percent-encoded spellings, for "this
 * folder" and "the folder above", so `/teams/..` would open `/`. Such an id is written behind an
 * escaped slash, `/teams/%2F..`. No id begins with `/`, so the escape cannot name another
 * resource, and whoever reads the path (the web app's router, the server for /api paths) drops it.
 */

/** Every kind of resource the web app has a page for, by the path segment of its pages. */
export const PAGE_KINDS = [
  "dataproducts",
  "datacontracts",
  "teams",
  "access",
  "assets",
  "sourcesystems",
  "definitions",
  "tags",
  "test-results",
  "connectors",
  "policies",
  "classification-schemes",
  "certifications",
] as const;

export type PageKind = (typeof PAGE_KINDS)[number];

/** Half of a surrogate pair on its own cannot be percent-encoded (encodeURIComponent throws). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The id as one path segment that every URL parser keeps as it is. */
export function idSegment(id: string): string {
  const segment = encodeURIComponent(id.replace(LONE_SURROGATE, "\ufffd"));
  return segment === "." || segment === ".." ? `%2F${segment}` : segment;
}

/** `/teams/checkout`: the path of the web app's page of one resource. */
export function pagePath(kind: PageKind, id: string): string {
  return `/${kind}/${idSegment(id)}`;
}

/** The id a path segment names (the reverse of idSegment). Throws URIError on malformed percent-encoding. */
export function idOfSegment(segment: string): string {
  const id = decodeURIComponent(segment);
  return id === "/." || id === "/.." ? id.slice(1) : id;
}

const ESCAPED_DOT_ID = /\/%2f(\.\.?)(?=\/|$)/gi;

/**
 * The request target with escaped dot ids as plain `.`/`..` segments, for a router that takes
 * segments as they arrive (a client that sends `/api/teams/..` as it is reaches the same id).
 */
export function withPlainDotIds(url: string): string {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  if (!/%2f\./i.test(path)) return url;
  return path.replace(ESCAPED_DOT_ID, "/$1") + (q === -1 ? "" : url.slice(q));
}
