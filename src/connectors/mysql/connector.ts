import { FeedConsumerError, type CloudEvent, type ConsumerLogger, type EventContext, type StewardClient } from "../../consumer/index.js";
import { accessPlan, consumerRole, dispatchAccessEvent, provisioningReporter, read, Serial, type Report } from "../access-events.js";
import { findPort, portType, productOwner, serverReference, type AccessView, type ProductView, type ServerReference } from "../postgres/catalog.js";
import { logDetail } from "../postgres/diagnostics.js";
import { narrowToPlan, Refusal, sameTarget, type Target } from "../postgres/trust.js";
import type { MysqlConfig } from "./config.js";
import type { Drift } from "../postgres/drift.js";
import { reconcileOnce } from "../postgres/reconcile.js";
import { mysqlPrivileges, mysqlRevokeOne, readMysqlCatalog } from "./reconcile.js";
import { NO_SUCH_GRANT, MysqlLedger, mysqlGrant, mysqlGrantStatement, mysqlRevoke, mysqlRevokeStatement, MysqlUnreachable, withMysql, type Run } from "./sql.js";

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
export class MysqlAccessConnector {
  private readonly ledger: MysqlLedger;

  constructor(
    private readonly config: MysqlConfig,
    private readonly logger: ConsumerLogger = {},
  ) {
    this.ledger = new MysqlLedger(config.ledger.schema);
  }

  readonly handle = (event: CloudEvent, context: EventContext): Promise<void> => this.exclusive(() => this.handleOne(event, context));

  /** Reconciliation as for PostgreSQL (docs/consumers.md); never at the same time as an event is handled. */
  reconcile(api: StewardClient, signal: AbortSignal, options: { reportOnly?: boolean } = {}): Promise<Drift[]> {
    return this.exclusive(() =>
      reconcileOnce(
        {
          logger: this.logger,
          serverMask: (server) => this.config.servers.get(server)?.maskSchema,
          readCatalog: (server, roles, _schemas, maskSchema) => this.on(server, signal, (run) => readMysqlCatalog(run, roles, maskSchema)),
          expected: mysqlPrivileges,
          revokeExtras: (server, privileges) =>
            this.on(server, signal, async (run) => {
              for (const p of privileges) {
                await run(mysqlRevokeOne(p)).catch((error: { errno?: number }) => {
                  if (!NO_SUCH_GRANT.has(error.errno ?? 0)) throw error;
                });
              }
            }),
          regrant: (target) => this.on(target.server, signal, (run) => mysqlGrant(run, target, this.mask(target))),
          grantStatement: (target) => mysqlGrantStatement(target, this.mask(target)),
          revokeStatement: (target) => mysqlRevokeStatement(target, this.mask(target)),
          diagnosticsOf: diagnostics,
          ledgerEntries: () => this.onLedger(signal, (run) => this.ledger.all(run)),
          targetOf: (access, reader) => this.targetOf(access, reader, signal),
          revoke: (accessId, target) => this.revoke(accessId, target, signal),
          grant: async (accessId, target) => {
            await this.onLedger(signal, (run) => this.ledger.record(run, accessId, target));
            await this.on(target.server, signal, (run) => mysqlGrant(run, target, this.mask(target)));
          },
          reporter: (accessId) => this.reporter(api, accessId, signal),
          maskSchema: (target) => this.mask(target),
          lastReported: this.lastReported,
        },
        api,
        signal,
        options.reportOnly === true,
      ),
    );
  }

  private readonly lastReported = new Map<string, string>();
  private readonly serial = new Serial();

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.serial.run(work);
  }

  /** What an access should hold: `undefined` for a port this connector does not serve, else a target or a refusal. */
  private async targetOf(access: AccessView, api: Pick<StewardClient, "get">, signal: AbortSignal): Promise<Target | Refusal | undefined> {
    const product = await read<ProductView>(api, `/api/dataproducts/${encodeURIComponent(access.provider.dataProductId)}`, signal);
    const port = product && findPort(product, access.provider.outputPortId);
    if (!product || !port || !TYPES.has(portType(port) ?? "")) return undefined;
    try {
      const target = decideMysqlTarget(this.config, productOwner(product), serverReference(port), await consumerRole(access, api, signal));
      return narrowToPlan(target, await accessPlan(access, port, api, signal));
    } catch (error) {
      if (error instanceof Refusal) return error;
      throw error;
    }
  }

  private handleOne(event: CloudEvent, context: EventContext): Promise<void> {
    return dispatchAccessEvent(event, context, { activate: (id, c) => this.activate(id, c), deactivate: (id, c) => this.deactivate(id, c) }, this.logger);
  }

  private on<T>(server: string, signal: AbortSignal, work: (run: Run) => Promise<T>): Promise<T> {
    return withMysql(this.config, server, signal, work);
  }

  private onLedger<T>(signal: AbortSignal, work: (run: Run) => Promise<T>): Promise<T> {
    return this.on(this.config.ledger.server, signal, work);
  }

  private mask(target: Target): string {
    return this.config.servers.get(target.server)?.maskSchema ?? "steward_masked";
  }

  private async activate(accessId: string, { api, signal }: EventContext): Promise<void> {
    const access = await read<AccessView>(api, `/api/access/${encodeURIComponent(accessId)}`, signal);
    if (!access?.info.active) return;
    const target = await this.targetOf(access, api, signal);
    if (target === undefined) return;
    const report = this.reporter(api, accessId, signal);
    try {
      const previous = await this.onLedger(signal, (run) => this.ledger.find(run, accessId));
      if (previous && !(target instanceof Refusal) && sameTarget(previous, target) && access.provisioning?.status === "provisioned") {
        const t = target;
        await this.on(t.server, signal, (run) => mysqlGrant(run, t, this.mask(t))).catch((error: unknown) => {
          if (signal.aborted) throw error;
          this.logger.warn?.("re-checking a provisioned grant failed", { accessId, error: logDetail(error) });
        });
        return;
      }
      if (previous) await this.revoke(accessId, previous, signal);
      if (target instanceof Refusal) throw target;
      const t = target;
      await report("provisioning-started");
      await this.onLedger(signal, (run) => this.ledger.record(run, accessId, t));
      await this.on(t.server, signal, (run) => mysqlGrant(run, t, this.mask(t)));
      this.logger.info?.("granted", { accessId, server: t.server, role: t.role, database: t.schema, table: t.table });
      await report("provisioning-succeeded", { reference: mysqlGrantStatement(t, this.mask(t)) });
    } catch (error) {
      if (signal.aborted || error instanceof FeedConsumerError) throw error;
      this.logger.warn?.("provisioning failed", { accessId, error: logDetail(error) });
      await report("provisioning-failed", { diagnostics: diagnostics(error) });
    }
  }

  private async deactivate(accessId: string, { api, signal }: EventContext): Promise<void> {
    const access = await read<AccessView>(api, `/api/access/${encodeURIComponent(accessId)}`, signal);
    if (access?.info.active) return;
    const report = access ? this.reporter(api, accessId, signal) : async () => {};
    let previous: Target | undefined;
    try {
      previous = await this.onLedger(signal, (run) => this.ledger.find(run, accessId));
      if (!previous) return;
      await report("deprovisioning-started");
      await this.revoke(accessId, previous, signal);
    } catch (error) {
      if (signal.aborted || error instanceof FeedConsumerError) throw error;
      this.logger.warn?.("deprovisioning failed", { accessId, error: logDetail(error) });
      if (access?.provisioning) await report("deprovisioning-failed", { diagnostics: diagnostics(error) });
      return;
    }
    this.logger.info?.("revoked", { accessId, server: previous.server, role: previous.role, database: previous.schema, table: previous.table });
    await report("deprovisioning-succeeded", { reference: mysqlRevokeStatement(previous, this.mask(previous)) });
  }

  private async revoke(accessId: string, target: Target, signal: AbortSignal): Promise<void> {
    if (!this.config.servers.has(target.server)) throw new Refusal(`The server '${target.server}' this access was granted on is no longer in the connector's configuration; the grant stays recorded until it is.`);
    const remaining = await this.onLedger(signal, (run) => this.ledger.others(run, accessId, target));
    await this.on(target.server, signal, (run) => mysqlRevoke(run, target, remaining, this.mask(target)));
    await this.onLedger(signal, (run) => this.ledger.remove(run, accessId));
  }

  private reporter(api: StewardClient, accessId: string, signal: AbortSignal): Report {
    return provisioningReporter(api, accessId, signal, { platform: "mysql", executor: MYSQL_EXECUTOR }, this.logger);
  }
}
