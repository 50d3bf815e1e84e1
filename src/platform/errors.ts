/**
 * Steward's errors. The domain throws these; the HTTP layer renders them as
 * application/problem+json (RFC 9457) and the CLI as a line of text.
 */

export interface FieldViolation {
  field: string;
  message: string;
  line?: number;
  column?: number;
}

const TITLES: Record<number, string> = {
  400: "Bad request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  408: "Request timeout",
  409: "Conflict",
  412: "Precondition failed",
  413: "Payload too large",
  415: "Unsupported media type",
  422: "Unprocessable content",
  429: "Too many requests",
  431: "Request header fields too large",
  500: "Internal server error",
  503: "Service unavailable",
};

const SLUGS: Record<number, string> = {
  400: "bad-request",
  401: "unauthorized",
  403: "forbidden",
  404: "not-found",
  405: "method-not-allowed",
  408: "request-timeout",
  409: "conflict",
  412: "precondition-failed",
  413: "payload-too-large",
  415: "unsupported-media-type",
  422: "validation-failed",
  429: "too-many-requests",
  431: "header-fields-too-large",
  500: "internal-error",
  503: "unavailable",
};

export function problemType(status: number): string {
  return `urn:steward:problem:${SLUGS[status] ?? "error"}`;
}

export function problemTitle(status: number): string {
  return TITLES[status] ?? "Error";
}

/** Violations one problem lists at most; past it, one last entry says how many more there were. */
export const MAX_VIOLATIONS = 1000;

/**
 * A document can have a problem per element (a product with 100,000 duplicate port ids): the
 * answer lists the first MAX_VIOLATIONS and counts the rest, so its size stays bounded. A list
 * that already ends in such a count (MAX_VIOLATIONS + 1 entries) is left as it is.
 */
function listed(violations: FieldViolation[] | undefined): FieldViolation[] | undefined {
  if (violations === undefined || violations.length <= MAX_VIOLATIONS + 1) return violations;
  const more = violations.length - MAX_VIOLATIONS;
  return [...violations.slice(0, MAX_VIOLATIONS), { field: violations[MAX_VIOLATIONS].field, message: `${more} more problems not listed (limit ${MAX_VIOLATIONS})` }];
}

/** `Error` with V8's stack limit, typed here: the web app shares this file and has no Node types. */
const V8Error = Error as ErrorConstructor & { stackTraceLimit: number };

export class Problem extends Error {
  readonly violations?: FieldViolation[];

  constructor(
    readonly status: number,
    readonly detail: string,
    violations?: FieldViolation[],
    readonly headers: Record<string, string> = {},
  ) {
    // A client's problem is an answer, not a fault, and its stack is never read: capturing one
    // cost about 5 µs of every 4xx (each of an asset synchronizer's 404s, each stranger's 401).
    // A 5xx keeps its stack.
    const stackTraceLimit = V8Error.stackTraceLimit;
    if (status < 500) V8Error.stackTraceLimit = 0;
    super(detail);
    V8Error.stackTraceLimit = stackTraceLimit;
    this.name = "Problem";
    this.violations = listed(violations);
  }
}

/*
 * The named problems: every problem Steward answers is made by one of these, so a status always
 * comes with its own type and title (problemType, problemTitle) and the code says what went wrong
 * in words rather than in numbers.
 */
export const badRequest = (detail: string, violations?: FieldViolation[]) => new Problem(400, detail, violations);
export const unauthorized = () =>
  new Problem(401, "A valid API key is required in the x-api-key header (or Authorization: Bearer).", undefined, {
    "www-authenticate": 'Bearer realm="steward"',
  });
/** 401 in the request's own words: not signed in, a wrong password, a missing bearer token. */
export const unauthenticated = (detail: string, headers?: Record<string, string>) => new Problem(401, detail, undefined, headers);
export const forbidden = (detail: string) => new Problem(403, detail);
export const notFound = (what: string, id: string) => new Problem(404, `${what} '${id}' was not found.`);
/** 404 for what has no id to name: an unusable invitation, a record not reported yet, a feature not configured. */
export const missing = (detail: string) => new Problem(404, detail);
export const methodNotAllowed = (detail: string, allow: string) => new Problem(405, detail, undefined, { allow });
export const conflict = (detail: string) => new Problem(409, detail);
export const preconditionFailed = (detail: string) => new Problem(412, detail);
/** 413: a body or a stored document over its limit, which the detail names. */
export const tooLarge = (detail: string) => new Problem(413, detail);
export const unsupportedMediaType = (detail: string) => new Problem(415, detail);
export const invalid = (detail: string, violations?: FieldViolation[]) => new Problem(422, detail, violations);
/** 429: a limit of concurrent or repeated requests reached; `retryAfter` is in seconds. */
export const tooManyRequests = (detail: string, retryAfter: number | string) => new Problem(429, detail, undefined, { "retry-after": String(retryAfter) });
export const unavailable = (detail: string, retryAfter?: number | string) =>
  new Problem(503, detail, undefined, retryAfter === undefined ? {} : { "retry-after": String(retryAfter) });
/** The database cannot be reached: nothing a client sent was wrong, and trying again later may work. */
export const databaseUnavailable = () => new Problem(503, "The database is not reachable.", undefined, { "retry-after": "5" });

/**
 * A problem that carries members beyond the standard ones (RFC 9457 extension members): a 409
 * that lists the breaking changes it refused and the accesses they would break, say.
 */
export class ProblemWithMembers extends Problem {
  constructor(
    status: number,
    detail: string,
    readonly members: Record<string, unknown>,
  ) {
    super(status, detail);
  }
}
