import pg from "pg";
import { FeedConsumerError, type CloudEvent, type ConsumerLogger, type EventContext, type StewardClient } from "../../consumer/index.js";
import { findPort, portType, productOwner, serverReference, type AccessView, type ProductView } from "./catalog.js";
import type { ConnectorConfig } from "./config.js";
import { Connections, inTransaction, Unreachable } from "./connections.js";
import { membershipStatement, readCatalog, revokeOne } from "./catalog-read.js";
import { diagnosticsOf, logDetail } from "./diagnostics.js";
import { applyGrant, applyRevoke, grantStatement, revokeStatement } from "./grants.js";
import { Ledger } from "./ledger.js";
import type { Drift } from "./drift.js";
import { reconcileOnce } from "./reconcile.js";
import { decideTarget, narrowToPlan, Refusal, sameTarget, type Target } from "./trust.js";
import { accessPlan, consumerRole, dispatchAccessEvent, provisioningReporter, read, Serial, type Report } from "../access-events.js";

export const EXECUTOR = "steward-postgres-connector";
export const HANDLED_KINDS = ["AccessActivatedEvent", "AccessDeactivatedEvent"] as const;

export type { Report };

/**
 * Grants and revokes PostgreSQL privileges for accesses to output ports of type `postgres`, on
 * the servers and objects of the operator's configuration only (docs/product.md §7). Each event
 * re-reads the access, so a replayed event acts on the current state. An event that fails is
 * reported on its access and logged, and the connector goes on with the next one.
 */
export class PostgresAccessConnector {
  private readonly connections: Connections;
  private readonly ledger: Ledger;

  constructor(
    private readonly config: ConnectorConfig,
    private readonly logger: ConsumerLogger = {},
  ) {
    this.connections = new Connections(config);
    this.ledger = new Ledger(config.ledger.schema);
  }

  /** The FeedConsumer handler. */
  readonly handle = (event: CloudEvent, context: EventContext): Promise<void> => this.exclusive(() => this.handleOne(event, context));

  /**
   * Reads back what the managed roles hold, compares it with the ledger and the accesses active
   * now, reports the drift and (unless `reportOnly`) repairs it (docs/consumers.md, "Reconciliation").
   * Never at the same time as an event is handled.
   */
  reconcile(api: StewardClient, signal: AbortSignal, options: { reportOnly?: boolean } = {}): Promise<Drift[]> {
    return this.exclusive(() =>
      reconcileOnce(
        {
          logger: this.logger,
          serverMask: (server) => this.config.servers.get(server)?.maskSchema,
          readCatalog: (server, roles, schemas, maskSchema) => this.connections.with(server, signal, (c) => this.readCatalog(server, c, roles, schemas, maskSchema)),
          members: (server) => this.config.servers.get(server)?.members,
          fixMemberships: (server, give, take) =>
            this.connections.with(server, signal, (c) =>
              inTransaction(c, async () => {
                for (const m of take) await c.query(membershipStatement(m, false));
                for (const m of give) await c.query(membershipStatement(m, true));
              }),
            ),
          revokeExtras: (server, privileges) =>
            this.connections.with(server, signal, (c) =>
              inTransaction(c, async () => {
                for (const p of privileges) await c.query(revokeOne(p));
              }),
            ),
          regrant: (target) => this.connections.with(target.server, signal, (c) => applyGrant(c, target, this.maskSchema(target), this.loginsOf(target))),
          grantStatement: (target) => grantStatement(target, this.maskSchema(target)),
          revokeStatement: (target) => revokeStatement(target),
          diagnosticsOf,
          ledgerEntries: () => this.withLedger(signal, (c) => this.ledger.all(c)),
          targetOf: (access, reader) => this.targetOf(access, reader, signal),
          revoke: (accessId, target) => this.revoke(accessId, target, signal),
          grant: (accessId, target) => this.grant(accessId, target, signal),
          reporter: (accessId) => this.reporter(api, accessId, signal),
          maskSchema: (target) => this.maskSchema(target),
          lastReported: this.lastReported,
        },
        api,
        signal,
        options.reportOnly === true,
      ),
    );
  }

  /** What each access was last reported for by reconciliation, so unchanged drift is not reported again and again. */
  private readonly lastReported = new Map<string, string>();
  private readonly serial = new Serial();

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.serial.run(work);
  }

  private handleOne(event: CloudEvent, context: EventContext): Promise<void> {
    return dispatchAccessEvent(event, context, { activate: (id, c) => this.activate(id, c), deactivate: (id, c) => this.deactivate(id, c) }, this.logger);
  }

  /** Nothing stays open between events; kept so callers need not know that. */
  async close(): Promise<void> {}

  private async activate(accessId: string, { api, signal }: EventContext): Promise<void> {
    const access = await read<AccessView>(api, `/api/access/${encodeURIComponent(accessId)}`, signal);
    if (!access?.info.active) return; // ended or deleted since: nothing to grant
    const target = await this.targetOf(access, api, signal);
    if (target === undefined) return; // not a port this connector serves
    const report = this.reporter(api, accessId, signal);
    try {
      const previous = await this.withLedger(signal, (c) => this.ledger.find(c, accessId));
      if (previous && !(target instanceof Refusal) && sameTarget(previous, target) && access.provisioning?.status === "provisioned") {
        // A replay of what is done already: make sure the privilege is there, report nothing
        // (the access is provisioned; a failure to re-check it is the operator's business).
        await this.connections.with(target.server, signal, (c) => applyGrant(c, target, this.maskSchema(target), this.loginsOf(target))).catch((error: unknown) => {
          if (signal.aborted) throw error;
          this.logger.warn?.("re-checking a provisioned grant failed", { accessId, error: logDetail(error) });
        });
        return;
      }
      // The port moved (or is refused now): what was granted at the old place goes first.
      if (previous) await this.revoke(accessId, previous, signal);
      if (target instanceof Refusal) throw target;
      await report("provisioning-started");
      await this.grant(accessId, target, signal);
      this.logger.info?.("granted", { accessId, server: target.server, role: target.role, schema: target.schema, table: target.table });
      await report("provisioning-succeeded", { reference: grantStatement(target, this.maskSchema(target)) });
    } catch (error) {
      if (signal.aborted || error instanceof FeedConsumerError) throw error;
      this.logger.warn?.("provisioning failed", { accessId, error: logDetail(error) });
      await report("provisioning-failed", { diagnostics: diagnosticsOf(error) });
    }
  }

  private async deactivate(accessId: string, { api, signal }: EventContext): Promise<void> {
    const access = await read<AccessView>(api, `/api/access/${encodeURIComponent(accessId)}`, signal);
    if (access?.info.active) return; // active again since: keep the privileges
    // A deleted access cannot be reported on; its grant is still revoked.
    const report: Report = access ? this.reporter(api, accessId, signal) : async () => {};
    let previous: Target | undefined;
    try {
      previous = await this.withLedger(signal, (c) => this.ledger.find(c, accessId));
      if (!previous) return; // nothing was granted, or it was revoked already
      await report("deprovisioning-started");
      await this.revoke(accessId, previous, signal);
    } catch (error) {
      if (signal.aborted || error instanceof FeedConsumerError) throw error;
      this.logger.warn?.("deprovisioning failed", { accessId, error: logDetail(error) });
      if (access?.provisioning) await report("deprovisioning-failed", { diagnostics: diagnosticsOf(error) });
      return;
    }
    this.logger.info?.("revoked", { accessId, server: previous.server, role: previous.role, schema: previous.schema, table: previous.table });
    await report("deprovisioning-succeeded", { reference: revokeStatement(previous) });
  }

  /**
   * What an access should hold: `undefined` for a port this connector does not serve, a
   * {@link Refusal} for one it may not grant, else the trusted target narrowed to the access's plan.
   */
  private async targetOf(access: AccessView, api: Pick<StewardClient, "get">, signal: AbortSignal): Promise<Target | Refusal | undefined> {
    const product = await read<ProductView>(api, `/api/dataproducts/${encodeURIComponent(access.provider.dataProductId)}`, signal);
    const port = product && findPort(product, access.provider.outputPortId);
    if (!product || !port || portType(port) !== "postgres") return undefined;
    try {
      const target = decideTarget(this.config, productOwner(product), serverReference(port), await consumerRole(access, api, signal));
      return narrowToPlan(target, await accessPlan(access, port, api, signal));
    } catch (error) {
      if (error instanceof Refusal) return error;
      throw error;
    }
  }

  /** Records the intent in the ledger, then grants; a grant that certainly did not happen is forgotten again. */
  private async grant(accessId: string, target: Target, signal: AbortSignal): Promise<void> {
    await this.withLedger(signal, (c) => this.ledger.record(c, accessId, target));
    try {
      await this.connections.with(target.server, signal, (c) => applyGrant(c, target, this.maskSchema(target), this.loginsOf(target)));
    } catch (error) {
      // Certainly nothing granted (never connected, or the server rolled back): forget the intent.
      if (error instanceof Unreachable || error instanceof pg.DatabaseError) await this.withLedger(signal, (c) => this.ledger.remove(c, accessId)).catch(() => {});
      throw error;
    }
  }

  /** Revokes one ledger entry where it was granted, keeping what other accesses of the role still hold. */
  private async revoke(accessId: string, target: Target, signal: AbortSignal): Promise<void> {
    if (!this.config.servers.has(target.server)) {
      throw new Refusal(`The server '${target.server}' this access was granted on is no longer in the connector's configuration; the grant stays recorded until it is.`);
    }
    const remaining = await this.withLedger(signal, (c) => this.ledger.others(c, accessId, target));
    await this.connections.with(target.server, signal, (c) => applyRevoke(c, target, remaining, this.maskSchema(target)));
    await this.withLedger(signal, (c) => this.ledger.remove(c, accessId));
  }

  /** The configured logins of the target's role on its server. */
  private loginsOf(target: Target): string[] {
    return (this.config.servers.get(target.server)?.members ?? []).filter((m) => m.role === target.role).map((m) => m.member);
  }

  /** The catalogs of a server, less the connector's own memberships (a CREATEROLE user holds the roles it makes). */
  private async readCatalog(server: string, client: pg.Client, roles: string[], schemas: string[], maskSchema: string) {
    const config = this.config.servers.get(server);
    const logins = [...new Set((config?.members ?? []).map((m) => m.member))].sort();
    const catalog = await readCatalog(client, roles, schemas, maskSchema, logins);
    return { ...catalog, memberships: (catalog.memberships ?? []).filter((m) => m.member !== config?.connection.user) };
  }

  private maskSchema(target: Target): string {
    return this.config.servers.get(target.server)?.maskSchema ?? "steward_masked";
  }

  private withLedger<T>(signal: AbortSignal, work: (client: pg.Client) => Promise<T>): Promise<T> {
    return this.connections.with(this.config.ledger.server, signal, work);
  }

  private reporter(api: StewardClient, accessId: string, signal: AbortSignal): Report {
    return provisioningReporter(api, accessId, signal, { platform: "postgres", executor: EXECUTOR }, this.logger);
  }
}
