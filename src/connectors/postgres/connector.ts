import pg from "pg";
import type { ConsumerLogger } from "../../consumer/index.js";
import { AccessConnector, type EngineReconcile } from "../access-connector.js";
import type { Report } from "../access-events.js";
import type { ServerReference } from "./catalog.js";
import type { ConnectorConfig } from "./config.js";
import { Connections, inTransaction, Unreachable } from "./connections.js";
import { membershipStatement, readCatalog, revokeOne } from "./catalog-read.js";
import { diagnosticsOf } from "./diagnostics.js";
import { applyGrant, applyRevoke, grantStatement, revokeStatement } from "./grants.js";
import { Ledger } from "./ledger.js";
import { decideTarget, type Target } from "./trust.js";

export const EXECUTOR = "steward-postgres-connector";
export const HANDLED_KINDS = ["AccessActivatedEvent", "AccessDeactivatedEvent"] as const;

export type { Report };

/**
 * Grants and revokes PostgreSQL privileges for accesses to output ports of type `postgres`, on
 * the servers and objects of the operator's configuration only (docs/product.md §7). Each event
 * re-reads the access, so a replayed event acts on the current state. An event that fails is
 * reported on its access and logged, and the connector goes on with the next one.
 */
export class PostgresAccessConnector extends AccessConnector {
  protected readonly reportedAs = { platform: "postgres", executor: EXECUTOR };
  protected readonly containerWord = "schema";
  private readonly connections: Connections;
  private readonly ledger: Ledger;

  constructor(
    private readonly config: ConnectorConfig,
    logger: ConsumerLogger = {},
  ) {
    super(logger);
    this.connections = new Connections(config);
    this.ledger = new Ledger(config.ledger.schema);
  }

  /** Ends the connections kept open between events (connections.ts). */
  close(): Promise<void> {
    return this.connections.close();
  }

  protected serves(type: string | undefined): boolean {
    return type === "postgres";
  }

  protected decide(owner: string | undefined, reference: ServerReference, role: string): Target {
    return decideTarget(this.config, owner, reference, role);
  }

  protected isConfigured(server: string): boolean {
    return this.config.servers.has(server);
  }

  protected maskSchemaOf(server: string): string | undefined {
    return this.config.servers.get(server)?.maskSchema;
  }

  protected diagnostics(error: unknown): Record<string, unknown> {
    return diagnosticsOf(error);
  }

  protected grantStatement(target: Target): string {
    return grantStatement(target, this.mask(target));
  }

  protected revokeStatement(target: Target): string {
    return revokeStatement(target);
  }

  protected ledgerFind(accessId: string, signal: AbortSignal) {
    return this.withLedger(signal, (c) => this.ledger.find(c, accessId));
  }

  protected ledgerAll(signal: AbortSignal) {
    return this.withLedger(signal, (c) => this.ledger.all(c));
  }

  protected ledgerOthers(accessId: string, target: Target, signal: AbortSignal) {
    return this.withLedger(signal, (c) => this.ledger.others(c, accessId, target));
  }

  protected ledgerRemove(accessId: string, signal: AbortSignal) {
    return this.withLedger(signal, (c) => this.ledger.remove(c, accessId));
  }

  /** Records the intent in the ledger, then grants; a grant that certainly did not happen is forgotten again. */
  protected async grant(accessId: string, target: Target, signal: AbortSignal): Promise<void> {
    await this.withLedger(signal, (c) => this.ledger.record(c, accessId, target));
    try {
      await this.regrant(target, signal);
    } catch (error) {
      // Certainly nothing granted (never connected, or the server rolled back): forget the intent.
      if (error instanceof Unreachable || error instanceof pg.DatabaseError) await this.ledgerRemove(accessId, signal).catch(() => {});
      throw error;
    }
  }

  protected regrant(target: Target, signal: AbortSignal): Promise<void> {
    return this.connections.with(target.server, signal, (c) => applyGrant(c, target, this.mask(target), this.loginsOf(target)));
  }

  protected applyRevoke(target: Target, remaining: readonly Target[], signal: AbortSignal): Promise<void> {
    return this.connections.with(target.server, signal, (c) => applyRevoke(c, target, remaining, this.mask(target)));
  }

  protected engineReconcile(signal: AbortSignal): EngineReconcile {
    return {
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
    };
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

  private withLedger<T>(signal: AbortSignal, work: (client: pg.Client) => Promise<T>): Promise<T> {
    return this.connections.with(this.config.ledger.server, signal, work);
  }
}
