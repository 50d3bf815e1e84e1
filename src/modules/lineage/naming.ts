/**
 * Which output port a dataset is, by OpenLineage dataset naming (docs/lineage.md): a pure mapping
 * from a port's `type` and `server` to the datasets it holds.
 *
 * | port type            | dataset namespace           | dataset name                          |
 * |----------------------|-----------------------------|---------------------------------------|
 * | postgres, postgresql | `postgres://host:port`      | `database.schema.table`               |
 * | mysql, mariadb       | `mysql://host:port`         | `database.table`                      |
 * | bigquery             | `bigquery`                  | `project.dataset.table`               |
 * | s3                   | `s3://bucket`               | the object path (a prefix of it)      |
 *
 * A server without a table holds every table of its schema (database for MySQL, dataset for
 * BigQuery); a server with one holds that table. Hosts and SQL names compare without case
 * (unquoted identifiers), object paths with it; a missing port is the technology's default.
 */

export interface Dataset {
  namespace: string;
  name: string;
}

/** An output port as the mapping reads it. */
export interface PortLocation {
  dataProductId: string;
  outputPortId: string;
  type?: string;
  server?: Record<string, unknown>;
}

/** The datasets one port holds: one namespace, and a name or a name prefix within it. */
export interface DatasetPattern {
  namespace: string;
  /** The one dataset name, when the server names a table. */
  name?: string;
  /** Names starting with it (then `name` is absent). */
  prefix?: string;
  caseSensitive: boolean;
}

const text = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : typeof v === "number" && Number.isFinite(v) ? String(v) : undefined);

function hostNamespace(scheme: string, server: Record<string, unknown>, defaultPort: number): string | undefined {
  const host = text(server.host);
  if (host === undefined) return undefined;
  return `${scheme}://${host.toLowerCase()}:${text(server.port) ?? defaultPort}`;
}

function sqlPattern(namespace: string | undefined, parts: Array<string | undefined>, table: string | undefined): DatasetPattern | undefined {
  if (namespace === undefined || parts.some((p) => p === undefined)) return undefined;
  const base = parts.join(".").toLowerCase();
  return table === undefined ? { namespace, prefix: `${base}.`, caseSensitive: false } : { namespace, name: `${base}.${table.toLowerCase()}`, caseSensitive: false };
}

/** The datasets a port holds by OpenLineage naming; undefined when its server says too little. */
export function portPattern(port: Pick<PortLocation, "type" | "server">): DatasetPattern | undefined {
  const server = port.server;
  if (server === undefined) return undefined;
  const type = (text(port.type) ?? text(server.type) ?? "").toLowerCase();
  const table = text(server.table);
  switch (type) {
    case "postgres":
    case "postgresql":
      return sqlPattern(hostNamespace("postgres", server, 5432), [text(server.database), text(server.schema) ?? "public"], table);
    case "mysql":
    case "mariadb":
      return sqlPattern(hostNamespace("mysql", server, 3306), [text(server.database)], table);
    case "bigquery":
      return sqlPattern("bigquery", [text(server.project), text(server.dataset)], table);
    case "s3": {
      const location = s3Location(server);
      if (location === undefined) return undefined;
      return { namespace: `s3://${location.bucket}`, prefix: location.path, caseSensitive: true };
    }
    default:
      return undefined;
  }
}

/** Bucket and object path of an S3 server: `location: s3://bucket/path`, or `bucket` and `path`. */
function s3Location(server: Record<string, unknown>): { bucket: string; path: string } | undefined {
  const location = text(server.location);
  if (location !== undefined) {
    const match = /^s3a?:\/\/([^/]+)\/?(.*)$/i.exec(location);
    if (match === null) return undefined;
    return { bucket: match[1].toLowerCase(), path: trimSlashes(match[2].replace(/\*.*$/, "")) };
  }
  const bucket = text(server.bucket);
  if (bucket === undefined) return undefined;
  return { bucket: bucket.toLowerCase(), path: trimSlashes(text(server.path) ?? "") };
}

const trimSlashes = (s: string) => s.replace(/^\/+|\/+$/g, "");

/** Whether `dataset` is one the pattern holds. */
export function holds(pattern: DatasetPattern, dataset: Dataset): boolean {
  const namespace = normalizeNamespace(dataset.namespace);
  if (namespace !== pattern.namespace) return false;
  if (pattern.namespace.startsWith("s3://")) {
    const name = trimSlashes(dataset.name);
    const prefix = pattern.prefix ?? "";
    return prefix === "" || name === prefix || name.startsWith(`${prefix}/`);
  }
  const name = pattern.caseSensitive ? dataset.name : dataset.name.toLowerCase();
  if (pattern.name !== undefined) return name === pattern.name;
  // A prefix of `db.schema.` holds `db.schema.table`, not `db.schema.table.more`.
  return pattern.prefix !== undefined && name.startsWith(pattern.prefix) && !name.slice(pattern.prefix.length).includes(".") && name.length > pattern.prefix.length;
}

const SCHEME_ALIASES: Record<string, string> = { s3a: "s3", postgresql: "postgres" };

/** A dataset namespace as patterns spell it: scheme and host in lower case, `s3a://` read as `s3://`. */
export function normalizeNamespace(namespace: string): string {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(.*)$/i.exec(namespace);
  if (match === null) return namespace.toLowerCase();
  const scheme = match[1].toLowerCase();
  return `${SCHEME_ALIASES[scheme] ?? scheme}://${match[2].toLowerCase()}${match[3]}`;
}

/** The ports (of many) that hold `dataset`; a table-named port before a schema-wide one. */
export function portsHolding<P extends PortLocation>(ports: ReadonlyArray<{ port: P; pattern: DatasetPattern }>, dataset: Dataset): P[] {
  const exact: P[] = [];
  const wide: P[] = [];
  for (const { port, pattern } of ports) {
    if (!holds(pattern, dataset)) continue;
    (pattern.name !== undefined ? exact : wide).push(port);
  }
  return exact.length > 0 ? exact : wide;
}
