import { readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../platform/config.js";

/**
 * The operator's connector configuration: the only source of *where* the connector connects and
 * *what* it may grant. Catalog documents only pick an entry of it by name.
 */

const Name = Type.String({ minLength: 1, maxLength: 200 });

const ConnectionSchema = Type.Object(
  {
    host: Name,
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    database: Name,
    user: Name,
    password: Type.Optional(Type.String()),
    /** Name of an environment variable holding the password, so the file can hold no secret. */
    passwordEnv: Type.Optional(Name),
    ssl: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const GrantableSchema = Type.Object(
  {
    /** The team (id) whose data products may grant this object. */
    team: Name,
    schema: Name,
    /** Absent: the whole schema (every table in it). */
    table: Type.Optional(Name),
  },
  { additionalProperties: false },
);

const ServerSchema = Type.Object(
  {
    connection: ConnectionSchema,
    grantable: Type.Optional(Type.Array(GrantableSchema, { maxItems: 10_000 })),
    /** The schema the connector owns for masking views (created when first needed). */
    maskSchema: Type.Optional(Name),
  },
  { additionalProperties: false },
);

const Milliseconds = Type.Integer({ minimum: 1, maximum: 600_000 });

export const ConnectorConfigSchema = Type.Object(
  {
    /** Keyed by the name output ports give in `server.host`. */
    servers: Type.Record(Name, ServerSchema),
    ledger: Type.Object(
      {
        /** The configured server whose database holds the ledger. */
        server: Name,
        schema: Type.Optional(Name),
      },
      { additionalProperties: false },
    ),
    timeouts: Type.Optional(
      Type.Object(
        { connectMs: Type.Optional(Milliseconds), statementMs: Type.Optional(Milliseconds), lockMs: Type.Optional(Milliseconds) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

type RawConfig = Static<typeof ConnectorConfigSchema>;
export type Grantable = Static<typeof GrantableSchema>;

export interface ServerConfig {
  name: string;
  connection: { host: string; port: number; database: string; user: string; password?: string; ssl?: boolean };
  grantable: Grantable[];
  maskSchema: string;
}

export interface Timeouts {
  connectMs: number;
  statementMs: number;
  lockMs: number;
}

export interface ConnectorConfig {
  servers: ReadonlyMap<string, ServerConfig>;
  ledger: { server: string; schema: string };
  timeouts: Timeouts;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, statementMs: 30_000, lockMs: 5_000 };
export const DEFAULT_LEDGER_SCHEMA = "steward_connector";
export const DEFAULT_MASK_SCHEMA = "steward_masked";

/** `$.servers["db.internal"].connection.port`-style paths, so an error names the member. */
function memberPath(pointer: string): string {
  let out = "";
  for (const part of pointer.split("/").slice(1)) {
    const key = part.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(key) ? `[${key}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  }
  return out === "" ? "(top level)" : out.slice(out.startsWith(".") ? 1 : 0);
}

/** Validates a parsed configuration; every problem is listed with the member it is about. */
export function parseConnectorConfig(raw: unknown, env: Record<string, string | undefined> = process.env, source = "the connector configuration"): ConnectorConfig {
  const problems = [...Value.Errors(ConnectorConfigSchema, raw)].slice(0, 20).map((e) => `${memberPath(e.path)}: ${e.message}`);
  if (problems.length > 0) throw new ConfigError(`${source} is not valid:\n  ${[...new Set(problems)].join("\n  ")}`);
  const config = raw as RawConfig;
  const servers = new Map<string, ServerConfig>();
  for (const [name, server] of Object.entries(config.servers)) {
    const { passwordEnv, password, port, ...connection } = server.connection;
    const at = `servers[${JSON.stringify(name)}].connection`;
    if (passwordEnv !== undefined && password !== undefined) throw new ConfigError(`${source}: ${at} has both password and passwordEnv; keep one.`);
    if (passwordEnv !== undefined && env[passwordEnv] === undefined) throw new ConfigError(`${source}: ${at}.passwordEnv names ${passwordEnv}, which is not set.`);
    servers.set(name, {
      name,
      connection: { ...connection, port: port ?? 5432, password: passwordEnv !== undefined ? env[passwordEnv] : password },
      grantable: server.grantable ?? [],
      maskSchema: server.maskSchema ?? DEFAULT_MASK_SCHEMA,
    });
  }
  if (!servers.has(config.ledger.server)) {
    throw new ConfigError(`${source}: ledger.server names "${config.ledger.server}", which is not one of servers (${[...servers.keys()].join(", ") || "none"}).`);
  }
  return {
    servers,
    ledger: { server: config.ledger.server, schema: config.ledger.schema ?? DEFAULT_LEDGER_SCHEMA },
    timeouts: { ...DEFAULT_TIMEOUTS, ...config.timeouts },
  };
}

/** Reads a YAML (or JSON) configuration file and validates it. */
export function loadConnectorConfig(path: string, env: Record<string, string | undefined> = process.env): ConnectorConfig {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, "utf8"), { maxAliasCount: 100 });
  } catch (error) {
    // Only the first line: parsers quote the offending line next, and that may hold a password.
    throw new ConfigError(`cannot read the connector configuration ${path}: ${String((error as Error).message).split("\n")[0]}`);
  }
  return parseConnectorConfig(raw, env, path);
}
