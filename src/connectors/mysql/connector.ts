import type { ConsumerLogger } from "../../consumer/index.js";
import { AccessConnector, type EngineReconcile } from "../access-connector.js";
import type { ServerReference } from "../postgres/catalog.js";
import { Refusal, type Target } from "../postgres/trust.js";
import type { MysqlConfig } from "./config.js";
import { isDefaultRole, mysqlPrivileges, mysqlRevokeOne, readMysqlCatalog } from "./reconcile.js";
import { MysqlConnections, MysqlUnreachable, type Run } from "./connections.js";
import { membershipStatements, NO_SUCH_GRANT, MysqlLedger, mysqlGrant, mysqlGrantStatement, mysqlRevoke, mysqlRevokeStatement } from "./sql.js";

export const MYSQL_EXECUTOR = "steward-mysql-connector";
export const MYSQL_KINDS = ["AccessActivatedEvent", "AccessDeactivatedEvent"] as const;
/** Output port types this connector serves. */
const TYPES = new Set(["mysql", "mariadb"]);

const shown = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

/**
 * Where and what to grant for a MySQL/MariaDB port: as for PostgreSQL (docs/consumers.md), the
 * port's `server.host` only names a configured server, and its database (`schema`, or
 * `database`) and table must be in that server's `grantable` list for the product's owner team.
 */
export function decideMysqlTarget(config: MysqlConfig, owner: string | undefined, reference: ServerReference, role: string): Target {
  const database = reference.schema ?? reference.database;
  if (!reference.name || !database) throw new Refusal("The output port's server needs host (the name of a server in the connector's configuration) and schema (the database).");
  const server = config.servers.get(reference.name);
  if (!server) throw new Refusal(`The server '${shown(reference.name)}' is not in the connector's configuration; the connector only acts on configured servers.`);
  if (!owner) throw new Refusal("The data product names no owner team, so nothing on it may be granted.");
  const table = reference.table ?? null;
  const allowed = server.grantable.some((e) => e.team === owner && e.schema === database && (e.table === undefined || e.table === table));
  if (!allowed) throw new Refusal(`Team '${shown(owner)}' may not grant ${shown(table === null ? `database '${database}'` : `table '${database}.${table}'`)} on server '${server.name}': the connector's configuration does not give it that object.`);
  return { server: server.name, schema: database, table, role };
}

function diagnostics(error: unknown): { message: string; code?: string } {
  if (error instanceof Refusal) return { message: error.message };
  if (error instanceof MysqlUnreachable) return { message: `The connector could not connect to the configured server '${error.server}'; the operator's log has the details.` };
  const e = error as { code?: unknown; errno?: unknown; sqlMessage?: unknown };
  // Missing objects and privileges (1044-1149) are about the mapped object itself.
  if (typeof e.errno === "number" && e.errno >= 1044 && e.errno <= 1149 && typeof e.sqlMessage === "string") return { message: e.sqlMessage, code: String(e.code) };
  return { message: "The connector could not complete the change; the operator's log has the details." };
}

/**
 * Grants and revokes MySQL/MariaDB privileges for accesses to output ports of type `mysql` or
 * `mariadb`, with the PostgreSQL connector's trust model: configured servers and objects only,
 * roles of the fixed scheme, a ledger, and the access's privileges plan (database, table and
 * column grants; masked columns through a view in a database the connector owns).
 */
export class MysqlAccessConnector extends AccessConnector {
  protected readonly reportedAs = { platform: "mysql", executor: MYSQL_EXECUTOR };
  protected readonly containerWord = "database";
  private readonly ledger: MysqlLedger;
  private readonly connections: MysqlConnections;

  constructor(
    private readonly config: MysqlConfig,
    logger: ConsumerLogger = {},
  ) {
    super(logger);
    this.ledger = new MysqlLedger(config.ledger.schema);
    this.connections = new MysqlConnections(config);
  }

  /** Ends the connections kept open between events (connections.ts). */
  close(): Promise<void> {
    return this.connections.close();
  }

  protected serves(type: string | undefined): boolean {
    return TYPES.has(type ?? "");
  }

  protected decide(owner: string | undefined, reference: ServerReference, role: string): Target {
    return decideMysqlTarget(this.config, owner, reference, role);
  }

  protected isConfigured(server: string): boolean {
    return this.config.servers.has(server);
  }

  protected maskSchemaOf(server: string): string | undefined {
    return this.config.servers.get(server)?.maskSchema;
  }

  protected diagnostics(error: unknown): Record<string, unknown> {
    return diagnostics(error);
  }

  protected grantStatement(target: Target): string {
    return mysqlGrantStatement(target, this.mask(target));
  }

  protected revokeStatement(target: Target): string {
    return mysqlRevokeStatement(target, this.mask(target));
  }

  protected ledgerFind(accessId: string, signal: AbortSignal) {
    return this.onLedger(signal, (run) => this.ledger.find(run, accessId));
  }

  protected ledgerAll(signal: AbortSignal) {
    return this.onLedger(signal, (run) => this.ledger.all(run));
  }

  protected ledgerOthers(accessId: string, target: Target, signal: AbortSignal) {
    return this.onLedger(signal, (run) => this.ledger.others(run, accessId, target));
  }

  protected ledgerRemove(accessId: string, signal: AbortSignal) {
    return this.onLedger(signal, (run) => this.ledger.remove(run, accessId));
  }

  /** The ledger first: MySQL's GRANT commits at once, so a crash in between leaves a record to revoke. */
  protected async grant(accessId: string, target: Target, signal: AbortSignal): Promise<void> {
    await this.onLedger(signal, (run) => this.ledger.record(run, accessId, target));
    await this.regrant(target, signal);
  }

  protected regrant(target: Target, signal: AbortSignal): Promise<void> {
    return this.on(target.server, signal, (run) => mysqlGrant(run, target, this.mask(target), this.loginsOf(target)));
  }

  /** The configured accounts of the target's role on its server. */
  private loginsOf(target: Target): string[] {
    return (this.config.servers.get(target.server)?.members ?? []).filter((m) => m.role === target.role).map((m) => m.member);
  }

  protected applyRevoke(target: Target, remaining: readonly Target[], signal: AbortSignal): Promise<void> {
    return this.on(target.server, signal, (run) => mysqlRevoke(run, target, remaining, this.mask(target)));
  }

  protected engineReconcile(signal: AbortSignal): EngineReconcile {
    return {
      readCatalog: (server, roles, _schemas, maskSchema) => {
        const config = this.config.servers.get(server);
        const scope = { self: config?.connection.user ?? "", ...(config?.members ? { members: config.members } : {}) };
        return this.on(server, signal, (run) => readMysqlCatalog(run, roles, maskSchema, scope));
      },
      expected: mysqlPrivileges,
      members: (server) => this.config.servers.get(server)?.members,
      fixMemberships: (server, give, take) =>
        this.on(server, signal, async (run) => {
          for (const m of take) for (const statement of membershipStatements(m, false, await isDefaultRole(run, m))) await run(statement);
          for (const m of give) for (const statement of membershipStatements(m, true)) await run(statement);
        }),
      revokeExtras: (server, privileges) =>
        this.on(server, signal, async (run) => {
          for (const p of privileges) {
            await run(mysqlRevokeOne(p)).catch((error: { errno?: number }) => {
              if (!NO_SUCH_GRANT.has(error.errno ?? 0)) throw error;
            });
          }
        }),
    };
  }

  private on<T>(server: string, signal: AbortSignal, work: (run: Run) => Promise<T>): Promise<T> {
    return this.connections.with(server, signal, work);
  }

  private onLedger<T>(signal: AbortSignal, work: (run: Run) => Promise<T>): Promise<T> {
    return this.on(this.config.ledger.server, signal, work);
  }
}
