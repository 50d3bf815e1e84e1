import { readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../platform/config.js";
import { ROLE_PREFIX, roleFor } from "./trust.js";

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

/** A login the connector makes a member of a role of its scheme: a team's, or a user's. */
const MemberSchema = Type.Union([
  Type.Object({ team: Name, login: Name }, { additionalProperties: false }),
  Type.Object({ user: Name, login: Name }, { additionalProperties: false }),
]);

const ServerSchema = Type.Object(
  {
    connection: ConnectionSchema,
    grantable: Type.Optional(Type.Array(GrantableSchema, { maxItems: 10_000 })),
    /**
     * The logins that hold the scheme's roles. Present: the connector grants these memberships
     * and keeps them, and takes any other membership in its roles away (docs/consumers.md).
     */
    members: Type.Optional(Type.Array(MemberSchema, { maxItems: 10_000 })),
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
  /** `undefined`: memberships of logins are the operator's, not the connector's. */
  members?: Membership[];
}

/** `member` holds `role` (pg_auth_members): a login in a role of the scheme. */
export interface Membership {
  role: string;
  member: string;
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
      ...(server.members ? { members: membersOf(server.members, `${source}: servers[${JSON.stringify(name)}].members`) } : {}),
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

/** The memberships a server's `members` list asks for; a login may not be a role of the scheme itself. */
function membersOf(list: RawConfig["servers"][string]["members"] & object, at: string): Membership[] {
  return list.map((entry, i) => {
    if (entry.login.startsWith(ROLE_PREFIX)) throw new ConfigError(`${at}[${i}].login: '${entry.login}' starts with ${ROLE_PREFIX}, the prefix of the connector's own roles.`);
    return { role: roleFor("team" in entry ? { team: entry.team } : { user: entry.user }), member: entry.login };
  });
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
