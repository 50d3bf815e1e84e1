import pg from "pg";
import type { CloudEvent, ConsumerLogger, EventContext, StewardClient } from "../../consumer/index.js";
import { grantStatement, GrantStore, revokeStatement, type Grant } from "./grants.js";

/** How the connector reaches the PostgreSQL servers named by output ports. Secrets stay in here. */
export interface PostgresSettings {
  /** Used when a port's server does not say. */
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  ssl?: boolean;
  /** Schema of the connector's own ledger table in each target database. */
  ledgerSchema?: string;
}

export const EXECUTOR = "steward-postgres-connector";
export const HANDLED_KINDS = ["AccessActivatedEvent", "AccessDeactivatedEvent"] as const;

interface AccessView {
  id: string;
  info: { active: boolean };
  provider: { dataProductId: string; outputPortId: string };
  consumer: { dataProductId?: string; teamId?: string; userId?: string };
  provisioning?: { status?: string };
}

interface PortView {
  id: string;
  type?: string;
  server?: { host?: string; port?: number | string; database?: string; schema?: string; table?: string };
}

interface ProductView {
  id: string;
  info: { owner: string };
  outputPorts?: PortView[];
  custom?: { postgresRole?: unknown };
}

/** Why an access cannot be provisioned; reported on the access as diagnostics. */
class ProvisioningProblem extends Error {}

/**
 * Grants and revokes PostgreSQL privileges for accesses to output ports of type `postgres`.
 * Each handled event re-reads the access, so an old event replayed later acts on the current
 * state: replaying the whole feed leaves the same privileges.
 */
export class PostgresAccessConnector {
  private readonly pools = new Map<string, { pool: pg.Pool; grants: GrantStore }>();

  constructor(
    private readonly settings: PostgresSettings,
    private readonly logger: ConsumerLogger = {},
  ) {}

  /** The FeedConsumer handler. */
  readonly handle = async (event: CloudEvent, context: EventContext): Promise<void> => {
    if (context.kind === "AccessActivatedEvent") await this.activate(event.data.id, context.api);
    else if (context.kind === "AccessDeactivatedEvent") await this.deactivate(event.data.id, context.api);
  };

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map(({ pool }) => pool.end()));
    this.pools.clear();
  }

  private async activate(accessId: string, api: StewardClient): Promise<void> {
    const access = await getOrUndefined<AccessView>(api, `/api/access/${encodeURIComponent(accessId)}`);
    if (!access?.info.active) return; // ended or deleted since: nothing to grant
    const product = await getOrUndefined<ProductView>(api, `/api/dataproducts/${encodeURIComponent(access.provider.dataProductId)}`);
    const port = product?.outputPorts?.find((p) => p.id === access.provider.outputPortId);
    if (!product || port?.type !== "postgres") return; // not a port this connector serves
    const report = (transition: string, body: Record<string, unknown>) =>
      api.post(`/api/access/${encodeURIComponent(accessId)}/provisioning/${transition}`, { platform: "postgres", executor: EXECUTOR, ...body });

    let grant: Grant;
    let store: GrantStore;
    try {
      grant = await this.grantFor(access, product, port, api);
      store = this.storeFor(port);
    } catch (error) {
      await report("provisioning-failed", { diagnostics: diagnosticsOf(error) });
      return;
    }
    // Already provisioned and recorded: a replay, or a second look at the same activation.
    if (access.provisioning?.status === "provisioned" && (await store.has(accessId))) {
      await store.grant(grant);
      return;
    }
    await report("provisioning-started", {});
    try {
      await store.grant(grant);
    } catch (error) {
      this.logger.warn?.("granting failed", { accessId, role: grant.role, schema: grant.schema });
      await report("provisioning-failed", { diagnostics: diagnosticsOf(error) });
      return;
    }
    this.logger.info?.("granted", { accessId, role: grant.role, schema: grant.schema, table: grant.table });
    await report("provisioning-succeeded", { reference: grantStatement(grant) });
  }

  private async deactivate(accessId: string, api: StewardClient): Promise<void> {
    const access = await getOrUndefined<AccessView>(api, `/api/access/${encodeURIComponent(accessId)}`);
    if (access?.info.active) return; // active again since: keep the privileges
    const product = access && (await getOrUndefined<ProductView>(api, `/api/dataproducts/${encodeURIComponent(access.provider.dataProductId)}`));
    const port = product?.outputPorts?.find((p) => p.id === access!.provider.outputPortId);
    // A deleted access leaves no port to look at; the ledger of the configured database, and of
    // every database this connector has written to since it started, know what it was granted.
    const stores =
      port?.type === "postgres" && hasServer(port)
        ? [this.storeFor(port)]
        : [...(this.settings.database ? [this.storeFor({ id: "", server: {} })] : []), ...[...this.pools.values()].map((p) => p.grants)];
    const report = async (transition: string, body: Record<string, unknown>) => {
      if (access) await api.post(`/api/access/${encodeURIComponent(accessId)}/provisioning/${transition}`, { platform: "postgres", executor: EXECUTOR, ...body });
    };
    let holder: GrantStore | undefined;
    for (const store of stores) if (await store.has(accessId)) holder = store;
    if (!holder) return; // nothing was granted here, or it was revoked already
    await report("deprovisioning-started", {});
    try {
      const revoked = await holder.revoke(accessId);
      this.logger.info?.("revoked", { accessId, role: revoked?.role, schema: revoked?.schema });
      await report("deprovisioning-succeeded", { reference: revoked ? revokeStatement(revoked) : undefined });
    } catch (error) {
      await report("deprovisioning-failed", { diagnostics: diagnosticsOf(error) });
    }
  }

  /** The consumer's role: the consuming data product's custom.postgresRole, else team_<team>, else the user's name. */
  private async grantFor(access: AccessView, _product: ProductView, port: PortView, api: StewardClient): Promise<Grant> {
    const schema = port.server?.schema;
    if (!hasServer(port) || !schema) throw new ProvisioningProblem(`Output port '${port.id}' needs server.database and server.schema.`);
    let role: string;
    const { dataProductId, teamId, userId } = access.consumer;
    if (dataProductId !== undefined) {
      const consumer = await getOrUndefined<ProductView>(api, `/api/dataproducts/${encodeURIComponent(dataProductId)}`);
      if (!consumer) throw new ProvisioningProblem(`The consuming data product '${dataProductId}' no longer exists.`);
      const configured = consumer.custom?.postgresRole;
      role = typeof configured === "string" && configured !== "" ? configured : `team_${consumer.info.owner}`;
    } else if (teamId !== undefined) {
      role = `team_${teamId}`;
    } else if (userId !== undefined) {
      role = userId;
    } else {
      throw new ProvisioningProblem("The access names no consumer.");
    }
    return { accessId: access.id, role, schema, table: port.server?.table ?? null };
  }

  private storeFor(port: PortView): GrantStore {
    const server = port.server ?? {};
    const config: pg.PoolConfig = {
      host: server.host ?? this.settings.host,
      port: server.port !== undefined ? Number(server.port) : this.settings.port,
      database: server.database ?? this.settings.database,
      user: this.settings.user,
      password: this.settings.password,
      ssl: this.settings.ssl,
      max: 2,
    };
    const key = `${config.host}:${config.port}/${config.database}`;
    let entry = this.pools.get(key);
    if (!entry) {
      const pool = new pg.Pool(config);
      pool.on("error", () => {});
      entry = { pool, grants: new GrantStore(pool, this.settings.ledgerSchema ?? "steward") };
      this.pools.set(key, entry);
    }
    return entry.grants;
  }
}

function hasServer(port: PortView): boolean {
  return typeof port.server?.database === "string" && port.server.database !== "";
}

async function getOrUndefined<T>(api: StewardClient, path: string): Promise<T | undefined> {
  try {
    return await api.get<T>(path);
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined;
    throw error;
  }
}

/** What went wrong, for the access's provisioning record: the database's words, never credentials. */
function diagnosticsOf(error: unknown): Record<string, unknown> {
  const e = error as { message?: string; code?: string };
  return { message: e.message ?? String(error), ...(e.code ? { code: e.code } : {}) };
}
