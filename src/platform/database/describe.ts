/**
 * A database URL as people may see it: the SQLite path, or PostgreSQL's user, host, port and
 * database — never a password, whether in the URL's userinfo or in its query string.
 */
export function describeDatabaseUrl(url: string): string {
  if (url.startsWith("sqlite:")) {
    const path = url.slice("sqlite:".length);
    return path === ":memory:" ? "SQLite in memory" : `SQLite ${path}`;
  }
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : "";
    const port = parsed.port ? `:${parsed.port}` : "";
    return `PostgreSQL ${user}${parsed.hostname}${port}${parsed.pathname}`;
  } catch {
    return "PostgreSQL (the URL could not be read)";
  }
}
