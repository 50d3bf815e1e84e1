import { readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../platform/config.js";
import { DEFAULT_TIMEOUTS, type Grantable, type Timeouts } from "../postgres/config.js";

/**
 * The MySQL/MariaDB connector's configuration: the same shape as the PostgreSQL connector's
 * (docs/consumers.md), where a server's `schema` is a MySQL database. Only the operator's file
 * says where the connector connects and what it may grant; documents pick an entry by name.
 */

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Milliseconds = Type.Integer({ minimum: 1, maximum: 600_000 });

const ServerSchema = Type.Object(
  {
    connection: Type.Object(
      {
        host: Type.Optional(Name),
        port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
        /** A local socket instead of host and port. */
        socketPath: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
        user: Name,
        password: Type.Optional(Type.String()),
        passwordEnv: Type.Optional(Name),
        ssl: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    grantable: Type.Optional(
      Type.Array(Type.Object({ team: Name, schema: Name, table: Type.Optional(Name) }, { additionalProperties: false }), { maxItems: 10_000 }),
    ),
    /** The database the connector owns for masking views (created when first needed). */
    maskSchema: Type.Optional(Name),
  },
  { additionalProperties: false },
);

export const MysqlConfigSchema = Type.Object(
  {
    servers: Type.Record(Name, ServerSchema),
    ledger: Type.Object({ server: Name, schema: Type.Optional(Name) }, { additionalProperties: false }),
    timeouts: Type.Optional(
      Type.Object({ connectMs: Type.Optional(Milliseconds), statementMs: Type.Optional(Milliseconds), lockMs: Type.Optional(Milliseconds) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

type Raw = Static<typeof MysqlConfigSchema>;

export interface MysqlServer {
  name: string;
  connection: { host?: string; port?: number; socketPath?: string; user: string; password?: string; ssl?: boolean };
  grantable: Grantable[];
  maskSchema: string;
}

export interface MysqlConfig {
  servers: ReadonlyMap<string, MysqlServer>;
  ledger: { server: string; schema: string };
  timeouts: Timeouts;
}

export function parseMysqlConfig(raw: unknown, env: Record<string, string | undefined> = process.env, source = "the connector configuration"): MysqlConfig {
  const problems = [...Value.Errors(MysqlConfigSchema, raw)].slice(0, 20).map((e) => `${e.path || "(top level)"}: ${e.message}`);
  if (problems.length > 0) throw new ConfigError(`${source} is not valid:\n  ${[...new Set(problems)].join("\n  ")}`);
  const config = raw as Raw;
  const servers = new Map<string, MysqlServer>();
  for (const [name, server] of Object.entries(config.servers)) {
    const { passwordEnv, password, ...connection } = server.connection;
    const at = `servers[${JSON.stringify(name)}].connection`;
    if (passwordEnv !== undefined && password !== undefined) throw new ConfigError(`${source}: ${at} has both password and passwordEnv; keep one.`);
    if (passwordEnv !== undefined && env[passwordEnv] === undefined) throw new ConfigError(`${source}: ${at}.passwordEnv names ${passwordEnv}, which is not set.`);
    if (connection.host === undefined && connection.socketPath === undefined) throw new ConfigError(`${source}: ${at} needs host or socketPath.`);
    const resolved = passwordEnv !== undefined ? env[passwordEnv] : password;
    servers.set(name, {
      name,
      connection: { ...connection, ...(resolved !== undefined ? { password: resolved } : {}) },
      grantable: server.grantable ?? [],
      maskSchema: server.maskSchema ?? "steward_masked",
    });
  }
  if (!servers.has(config.ledger.server)) throw new ConfigError(`${source}: ledger.server names "${config.ledger.server}", which is not one of servers.`);
  return { servers, ledger: { server: config.ledger.server, schema: config.ledger.schema ?? "steward_connector" }, timeouts: { ...DEFAULT_TIMEOUTS, ...config.timeouts } };
}

export function loadMysqlConfig(path: string, env: Record<string, string | undefined> = process.env): MysqlConfig {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, "utf8"), { maxAliasCount: 100 });
  } catch (error) {
    throw new ConfigError(`cannot read the connector configuration ${path}: ${String((error as Error).message).split("\n")[0]}`);
  }
  return parseMysqlConfig(raw, env, path);
}
