/**
 * The main loop every database connector shares (docs/consumers.md): events one at a time,
 * activation and deactivation re-reading the access, the ledger written before a grant and
 * cleared after a revoke, provisioning reports, and reconciliation wired to the engine-neutral
 * pass. An engine supplies only its SQL: where a grant goes, how it is made and taken back, and
 * what its catalogs hold.
 */
import { FeedConsumerError, type CloudEvent, type ConsumerLogger, type EventContext, type StewardClient } from "../consumer/index.js";
import { accessPlan, consumerRole, dispatchAccessEvent, provisioningReporter, read, Serial, type Report } from "./access-events.js";
import { findPort, portType, productOwner, serverReference, type AccessView, type ProductView, type ServerReference } from "./postgres/catalog.js";
import { logDetail } from "./postgres/diagnostics.js";
import type { Drift } from "./postgres/drift.js";
import { reconcileOnce, type ReconcileHost } from "./postgres/reconcile.js";
import { narrowToPlan, Refusal, sameTarget, type Target } from "./postgres/trust.js";

/** What reconciliation needs that only the engine knows: reading its catalogs and changing them. */
export type EngineReconcile = Pick<ReconcileHost, "readCatalog" | "revokeExtras"> & Partial<Pick<ReconcileHost, "expected" | "members" | "fixMemberships">>;

export abstract class AccessConnector {
  /** Names the platform and executor in provisioning reports. */
  protected abstract readonly reportedAs: { platform: string; executor: string };
  /** What the engine calls the container of tables in the operator's log (`schema`, `database`). */
  protected abstract readonly containerWord: string;

  constructor(protected readonly logger: ConsumerLogger = {}) {}

  /** Output port types this connector serves. */
  protected abstract serves(portType: string | undefined): boolean;
  /** The trusted target of a port, or a thrown {@link Refusal}. */
  protected abstract decide(owner: string | undefined, reference: ServerReference, role: string): Target;
  protected abstract isConfigured(server: string): boolean;
  protected abstract maskSchemaOf(server: string): string | undefined;
  protected abstract diagnostics(error: unknown): Record<string, unknown>;
  protected abstract grantStatement(target: Target): string;
  protected abstract revokeStatement(target: Target): string;

  protected abstract ledgerFind(accessId: string, signal: AbortSignal): Promise<Target | undefined>;
  protected abstract ledgerAll(signal: AbortSignal): Promise<Array<{ accessId: string; target: Target }>>;
  /** What other accesses hold for the same role in the same schema of the same server. */
  protected abstract ledgerOthers(accessId: string, target: Target, signal: AbortSignal): Promise<Target[]>;
  protected abstract ledgerRemove(accessId: string, signal: AbortSignal): Promise<void>;

  /** Records the intent in the ledger, then grants. */
  protected abstract grant(accessId: string, target: Target, signal: AbortSignal): Promise<void>;
  /** Makes a recorded grant whole again (idempotent). */
  protected abstract regrant(target: Target, signal: AbortSignal): Promise<void>;
  /** Takes `target` away on its server and grants again what `remaining` still holds. */
  protected abstract applyRevoke(target: Target, remaining: readonly Target[], signal: AbortSignal): Promise<void>;
  protected abstract engineReconcile(signal: AbortSignal): EngineReconcile;

  /** The FeedConsumer handler. */
  readonly handle = (event: CloudEvent, context: EventContext): Promise<void> =>
    this.exclusive(() => dispatchAccessEvent(event, context, { activate: (id, c) => this.activate(id, c), deactivate: (id, c) => this.deactivate(id, c) }, this.logger));

  /**
   * Reads back what the managed roles hold, compares it with the ledger and the accesses active
   * now, reports the drift and (unless `reportOnly`) repairs it (docs/consumers.md, "Reconciliation").
   * Never at the same time as an event is handled.
   */
  reconcile(api: StewardClient, signal: AbortSignal, options: { reportOnly?: boolean } = {}): Promise<Drift[]> {
    const host: ReconcileHost = {
      ...this.engineReconcile(signal),
      logger: this.logger,
      serverMask: (server) => this.maskSchemaOf(server),
      regrant: (target) => this.regrant(target, signal),
      grantStatement: (target) => this.grantStatement(target),
      revokeStatement: (target) => this.revokeStatement(target),
      diagnosticsOf: (error) => this.diagnostics(error),
      ledgerEntries: () => this.ledgerAll(signal),
      targetOf: (access, reader) => this.targetOf(access, reader, signal),
      revoke: (accessId, target) => this.revoke(accessId, target, signal),
      grant: (accessId, target) => this.grant(accessId, target, signal),
      reporter: (accessId) => this.reporter(api, accessId, signal),
      maskSchema: (target) => this.mask(target),
      lastReported: this.lastReported,
    };
    return this.exclusive(() => reconcileOnce(host, api, signal, options.reportOnly === true));
  }

  /** What each access was last reported for by reconciliation, so unchanged drift is not reported again and again. */
  private readonly lastReported = new Map<string, string>();
  private readonly serial = new Serial();

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.serial.run(work);
  }

  protected mask(target: Target): string {
    return this.maskSchemaOf(target.server) ?? "steward_masked";
  }

  /**
   * What an access should hold: `undefined` for a port this connector does not serve, a
   * {@link Refusal} for one it may not grant, else the trusted target narrowed to the access's plan.
   */
  private async targetOf(access: AccessView, api: Pick<StewardClient, "get">, signal: AbortSignal): Promise<Target | Refusal | undefined> {
    const product = await read<ProductView>(api, `/api/dataproducts/${encodeURIComponent(access.provider.dataProductId)}`, signal);
    const port = product && findPort(product, access.provider.outputPortId);
    if (!product || !port || !this.serves(portType(port))) return undefined;
    try {
      const target = this.decide(productOwner(product), serverReference(port), await consumerRole(access, api, signal));
      return narrowToPlan(target, await accessPlan(access, port, api, signal));
    } catch (error) {
      if (error instanceof Refusal) return error;
      throw error;
    }
  }

  private where(target: Target): Record<string, unknown> {
    return { server: target.server, role: target.role, [this.containerWord]: target.schema, table: target.table };
  }

  private async activate(accessId: string, { api, signal }: EventContext): Promise<void> {
    const access = await read<AccessView>(api, `/api/access/${encodeURIComponent(accessId)}`, signal);
    if (!access?.info.active) return; // ended or deleted since: nothing to grant
    const target = await this.targetOf(access, api, signal);
    if (target === undefined) return; // not a port this connector serves
    const report = this.reporter(api, accessId, signal);
    try {
      const previous = await this.ledgerFind(accessId, signal);
      if (previous && !(target instanceof Refusal) && sameTarget(previous, target) && access.provisioning?.status === "provisioned") {
        // A replay of what is done already: make sure the privilege is there, report nothing
        // (the access is provisioned; a failure to re-check it is the operator's business).
        await this.regrant(target, signal).catch((error: unknown) => {
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
      this.logger.info?.("granted", { accessId, ...this.where(target) });
      await report("provisioning-succeeded", { reference: this.grantStatement(target) });
    } catch (error) {
      if (signal.aborted || error instanceof FeedConsumerError) throw error;
      this.logger.warn?.("provisioning failed", { accessId, error: logDetail(error) });
      await report("provisioning-failed", { diagnostics: this.diagnostics(error) });
    }
  }

  private async deactivate(accessId: string, { api, signal }: EventContext): Promise<void> {
    // The ledger is read while Steward answers: both reads, one wait. The ledger's answer, or its
    // failure, counts only when the access is found ended.
    const [found, recorded] = await Promise.allSettled([read<AccessView>(api, `/api/access/${encodeURIComponent(accessId)}`, signal), this.ledgerFind(accessId, signal)]);
    if (found.status === "rejected") throw found.reason;
    const access = found.value;
    if (access?.info.active) return; // active again since: keep the privileges
    // A deleted access cannot be reported on; its grant is still revoked.
    const report: Report = access ? this.reporter(api, accessId, signal) : async () => {};
    let previous: Target | undefined;
    try {
      if (recorded.status === "rejected") throw recorded.reason;
      previous = recorded.value;
      if (!previous) return; // nothing was granted, or it was revoked already
      await report("deprovisioning-started");
      await this.revoke(accessId, previous, signal);
    } catch (error) {
      if (signal.aborted || error instanceof FeedConsumerError) throw error;
      this.logger.warn?.("deprovisioning failed", { accessId, error: logDetail(error) });
      if (access?.provisioning) await report("deprovisioning-failed", { diagnostics: this.diagnostics(error) });
      return;
    }
    this.logger.info?.("revoked", { accessId, ...this.where(previous) });
    await report("deprovisioning-succeeded", { reference: this.revokeStatement(previous) });
  }

  /** Revokes one ledger entry where it was granted, keeping what other accesses of the role still hold. */
  private async revoke(accessId: string, target: Target, signal: AbortSignal): Promise<void> {
    if (!this.isConfigured(target.server)) {
      throw new Refusal(`The server '${target.server}' this access was granted on is no longer in the connector's configuration; the grant stays recorded until it is.`);
    }
    const remaining = await this.ledgerOthers(accessId, target, signal);
    await this.applyRevoke(target, remaining, signal);
    await this.ledgerRemove(accessId, signal);
  }

  private reporter(api: StewardClient, accessId: string, signal: AbortSignal): Report {
    return provisioningReporter(api, accessId, signal, this.reportedAs, this.logger);
  }
}
