/**
 * Whether an error says the database cannot be used right now (it is down, restarting, dropped,
 * or refuses the connection) rather than that a statement was wrong. Such a request is not a bug
 * of Steward's: it is answered 503 with Retry-After, as /health/ready answers, instead of 500.
 */

/** PostgreSQL's SQLSTATEs for a server shutting down or not accepting sessions, a database that no longer exists, a refused login. */
const POSTGRES_STATES = new Set(["57P01", "57P02", "57P03", "3D000", "53300", "28000", "28P01"]);
/** The socket's errors when no connection can be made or one was lost; SQLite's when its file cannot be opened. */
const SYSTEM_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "EPIPE", "SQLITE_CANTOPEN"]);
/** What `pg` and its pool say, without a code, when a connection ended or could not be had. */
const LOST_CONNECTION = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed and is not queryable)/;

export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const code = (error as { code?: unknown }).code;
  // Class 08 is "connection exception" as a whole.
  if (typeof code === "string" && (code.startsWith("08") || POSTGRES_STATES.has(code) || SYSTEM_CODES.has(code))) return true;
  if (LOST_CONNECTION.test(error.message)) return true;
  // Connecting to a name with several addresses fails with one error per address.
  if (error instanceof AggregateError && error.errors.some((e) => isDatabaseUnreachable(e, depth + 1))) return true;
  return isDatabaseUnreachable(error.cause, depth + 1);
}
