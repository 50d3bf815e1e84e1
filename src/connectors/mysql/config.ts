import { readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { parse as parseYaml } from "yaml";
import { ConfigError } from "../../platform/config.js";
import { DEFAULT_TIMEOUTS, type Grantable, type Membership, type Timeouts } from "../postgres/config.js";
import { ROLE_PREFIX, roleFor } from "../postgres/trust.js";

/**
 * The MySQL/MariaDB connector's configuration: the same shape as the PostgreSQL connector's
 * (docs/consumers.md), where a server's `schema` is a MySQL database. Only the operator's file
 * says where the connector connects and what it may grant; documents pick an entry by name.
 */

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Milliseconds = Type.Integer({ minimum: 1, maximum: 600_000 });

/** A login (an account `login@host`, host `%` unless given) the connector makes a member of a role of its scheme. */
const MemberSchema = Type.Union([
  Type.Object({ team: Name, login: Name, host: Type.Optional(Name) }, { additionalProperties: false }),
  Type.Object({ user: Name, login: Name, host: Type.Optional(Name) }, { additionalProperties: false }),
]);

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
    /**
     * The accounts that hold the scheme's roles, as their default role. Present: the connector
     * grants these memberships and keeps them, and takes any other membership in its roles away.
     */
    members: Type.Optional(Type.Array(MemberSchema, { maxItems: 10_000 })),
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
  /** `undefined`: memberships of accounts are the operator's. A member is an account, `login@host`. */
  members?: Membership[];
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
      ...(server.members ? { members: membersOf(server.members, `${source}: servers[${JSON.stringify(name)}].members`) } : {}),
    });
  }
  if (!servers.has(config.ledger.server)) throw new ConfigError(`${source}: ledger.server names "${config.ledger.server}", which is not one of servers.`);
  return { servers, ledger: { server: config.ledger.server, schema: config.ledger.schema ?? "steward_connector" }, timeouts: { ...DEFAULT_TIMEOUTS, ...config.timeouts } };
}

/**
 * The memberships a server's `members` list asks for. MariaDB gives an account one default role,
 * and the connector makes the role it grants the default: an account may be listed once.
 */
function membersOf(list: NonNullable<Raw["servers"][string]["members"]>, at: string): Membership[] {
  const seen = new Set<string>();
  return list.map((entry, i) => {
    if (entry.login.startsWith(ROLE_PREFIX)) throw new ConfigError(`${at}[${i}].login: '${entry.login}' starts with ${ROLE_PREFIX}, the prefix of the connector's own roles.`);
    const member = `${entry.login}@${entry.host ?? "%"}`;
    if (seen.has(member)) throw new ConfigError(`${at}[${i}]: the account ${member} is listed twice; MariaDB gives an account one default role.`);
    seen.add(member);
    return { role: roleFor("team" in entry ? { team: entry.team } : { user: entry.user }), member };
  });
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
