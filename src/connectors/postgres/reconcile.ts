/**
 * Reconciliation (docs/consumers.md, "Reconciliation"): one pass that lists the accesses active
 * now, reads the ledger once and each server's catalogs once, finds the drift (drift.ts), repairs
 * it unless only reporting, and reports it on the accesses it concerns. With nothing drifted it
 * runs one ledger statement and one catalog statement per server, whatever the number of accesses.
 */
import type { ConsumerLogger, StewardClient } from "../../consumer/index.js";
import type { AccessView } from "./catalog.js";
import type { Membership } from "./config.js";
import type { Report } from "../access-events.js";
import { logDetail } from "./diagnostics.js";
import { findDrift, type CatalogState, type Drift, type LedgerEntry, type Privilege } from "./drift.js";
import { Refusal, type Target } from "./trust.js";

/** What reconciliation needs of one engine's connector; the pass itself is the same for every engine. */
export interface ReconcileHost {
  logger: ConsumerLogger;
  /** The configured server's masking schema, or `undefined` when the server is not configured. */
  serverMask(server: string): string | undefined;
  /** One read of the server's catalogs for these roles, and the tables of these (whole-grant) schemas. */
  readCatalog(server: string, roles: string[], schemas: string[], maskSchema: string): Promise<CatalogState>;
  /** What a target makes its role hold, in the engine's terms. */
  expected?: (target: Target, tablesOf: (schema: string) => readonly string[], maskSchema: string) => Privilege[];
  /** The memberships the server's configuration lists, if it lists them (docs/consumers.md). */
  members?(server: string): readonly Membership[] | undefined;
  /** Gives removed memberships back and takes those added by hand away. */
  fixMemberships?(server: string, give: Membership[], take: Membership[]): Promise<void>;
  /** Takes privileges added by hand away again. */
  revokeExtras(server: string, privileges: Privilege[]): Promise<void>;
  /** Makes a recorded grant whole again (idempotent). */
  regrant(target: Target): Promise<void>;
  grantStatement(target: Target): string;
  revokeStatement(target: Target): string;
  diagnosticsOf(error: unknown): Record<string, unknown>;
  ledgerEntries(): Promise<LedgerEntry[]>;
  targetOf(access: AccessView, reader: Pick<StewardClient, "get">): Promise<Target | Refusal | undefined>;
  revoke(accessId: string, target: Target): Promise<void>;
  grant(accessId: string, target: Target): Promise<void>;
  reporter(accessId: string): Report;
  maskSchema(target: Target): string;
  lastReported: Map<string, string>;
}

const PAGE = 1000;
/** At most this many accesses are read per pass; more are reconciled in part, and the operator's log says so. */
const MAX_ACTIVE = 200_000;
const MAX_REPORTED = 50;

/** Every active access, page by page (`from` continues where a page, cut short or not, ended). */
async function activeAccesses(api: StewardClient, signal: AbortSignal, logger: ConsumerLogger): Promise<AccessView[]> {
  const all: AccessView[] = [];
  for (;;) {
    const page = await api.get<AccessView[]>(`/api/access?active=true&pageSize=${PAGE}&from=${all.length}`, { signal });
    if (!Array.isArray(page) || page.length === 0) return all;
    all.push(...page);
    if (all.length >= MAX_ACTIVE) {
      logger.warn?.("reconciliation read the first accesses only", { limit: MAX_ACTIVE });
      return all;
    }
  }
}

/** A reader that asks Steward once per path in one pass: many accesses share a product and a contract. */
function onceReader(api: StewardClient): Pick<StewardClient, "get"> {
  const seen = new Map<string, Promise<unknown>>();
  return {
    get<T>(path: string, options?: { signal?: AbortSignal }): Promise<T> {
      if (!seen.has(path)) seen.set(path, api.get(path, options));
      return seen.get(path) as Promise<T>;
    },
  };
}

export async function reconcileOnce(host: ReconcileHost, api: StewardClient, signal: AbortSignal, reportOnly: boolean): Promise<Drift[]> {
  const accesses = await activeAccesses(api, signal, host.logger);
  const reader = onceReader(api);
  const desired = new Map<string, Map<string, Target | null>>();
  const refused = new Set<string>();
  for (const access of accesses) {
    const target = await host.targetOf(access, reader);
    if (target === undefined) continue;
    if (target instanceof Refusal) refused.add(access.id);
    else (desired.get(target.server) ?? desired.set(target.server, new Map()).get(target.server)!).set(access.id, target);
  }
  const entries = await host.ledgerEntries();
  const servers = new Set([...desired.keys(), ...entries.map((e) => e.target.server)]);
  const found: Drift[] = [];
  for (const server of [...servers].sort()) {
    const maskSchema = host.serverMask(server);
    const onServer = entries.filter((e) => e.target.server === server);
    if (maskSchema === undefined) {
      if (onServer.length > 0) host.logger.warn?.("the ledger names a server that is no longer configured; its grants are left as they are", { server, grants: onServer.length });
      continue;
    }
    const wanted = new Map(desired.get(server) ?? []);
    // An access refused now (its port moved off the mapping) but recorded here: its grant goes.
    for (const e of onServer) if (refused.has(e.accessId)) wanted.set(e.accessId, null);
    const roles = [...new Set(onServer.map((e) => e.target.role))].sort();
    const schemas = [...new Set(onServer.filter((e) => e.target.table === null && !e.target.grants).map((e) => e.target.schema))].sort();
    try {
      const catalog = await host.readCatalog(server, roles, schemas, maskSchema);
      const members = host.members?.(server);
      const drift = findDrift({ entries: onServer, desired: wanted, catalog, maskSchema, ...(host.expected ? { expected: host.expected } : {}), ...(members ? { members } : {}) });
      found.push(...drift);
      const failures = reportOnly || drift.length === 0 ? new Map<string, unknown>() : await repair(host, server, drift, onServer, wanted, signal);
      await report(host, drift, onServer, wanted, failures, reportOnly);
    } catch (error) {
      if (signal.aborted) throw error;
      host.logger.warn?.("reconciliation of a server failed", { server, error: logDetail(error) });
    }
  }
  if (found.length > 0) host.logger.info?.("reconciliation found drift", { drift: found.length, repaired: !reportOnly });
  return found;
}

/** Repairs the drift of one server; answers the accesses whose repair failed, with the error. */
async function repair(host: ReconcileHost, server: string, drift: Drift[], entries: LedgerEntry[], wanted: Map<string, Target | null>, signal: AbortSignal): Promise<Map<string, unknown>> {
  const failures = new Map<string, unknown>();
  const attempt = async (accessIds: string[], work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      if (signal.aborted) throw error;
      host.logger.warn?.("repairing drift failed", { server, accessIds, error: logDetail(error) });
      for (const id of accessIds) failures.set(id, error);
    }
  };
  const entryOf = new Map(entries.map((e) => [e.accessId, e.target] as const));
  const done = new Set<string>();
  // Ended and re-planned accesses first: revoking may re-grant what other accesses of the role hold.
  for (const d of drift) {
    const id = d.accessIds[0]!;
    if ((d.kind === "ended-access" || d.kind === "replanned") && !done.has(id)) {
      done.add(id);
      await attempt([id], async () => {
        const previous = entryOf.get(id)!;
        await host.revoke(id, previous);
        host.logger.info?.("revoked", { accessId: id, server: previous.server, role: previous.role, schema: previous.schema, table: previous.table });
        const target = wanted.get(id);
        if (d.kind === "replanned" && target) await host.grant(id, target);
      });
    } else if (d.kind === "missing-privilege" && !entryOf.has(id) && !done.has(id)) {
      done.add(id);
      await attempt([id], async () => {
        const target = wanted.get(id)!;
        await host.grant(id, target);
        host.logger.info?.("granted", { accessId: id, server: target.server, role: target.role, schema: target.schema, table: target.table });
      });
    }
  }
  // Privileges added by hand go; then the grants they may have cut into are made whole again (a
  // table-wide REVOKE also takes the column privileges a plan wants), and so are the grants with
  // a privilege missing, a role dropped or a masking view changed. Only those: a pass with a few
  // drifts costs a few statements, however many accesses there are.
  const extras = drift.filter((d) => d.kind === "extra-privilege" && d.privilege);
  if (extras.length > 0) {
    await attempt([...new Set(extras.flatMap((d) => d.accessIds))], () => host.revokeExtras(server, extras.map((d) => d.privilege!)));
  }
  const give = drift.filter((d) => d.kind === "removed-membership" && d.membership).map((d) => d.membership!);
  const take = drift.filter((d) => d.kind === "extra-membership" && d.membership).map((d) => d.membership!);
  if ((give.length > 0 || take.length > 0) && host.fixMemberships) {
    const concerned = drift.filter((d) => d.membership).flatMap((d) => d.accessIds);
    await attempt([...new Set(concerned)], () => host.fixMemberships!(server, give, take));
  }
  const repairs = new Set(drift.filter((d) => ["missing-privilege", "dropped-role", "changed-mask-view"].includes(d.kind)).flatMap((d) => d.accessIds));
  const cut = (target: Target) => extras.some((d) => d.privilege!.role === target.role && d.privilege!.schema === target.schema);
  for (const entry of entries) {
    if (done.has(entry.accessId) || !wanted.has(entry.accessId)) continue;
    if (!repairs.has(entry.accessId) && !cut(entry.target)) continue;
    await attempt([entry.accessId], () => host.regrant(entry.target));
  }
  return failures;
}

/** One provisioning report per access the drift concerns; drift reported before and unchanged is not reported again. */
async function report(host: ReconcileHost, drift: Drift[], entries: LedgerEntry[], wanted: Map<string, Target | null>, failures: Map<string, unknown>, reportOnly: boolean): Promise<void> {
  const byAccess = new Map<string, Drift[]>();
  for (const d of drift) for (const id of d.accessIds) byAccess.set(id, [...(byAccess.get(id) ?? []), d]);
  const entryOf = new Map(entries.map((e) => [e.accessId, e.target] as const));
  for (const id of [...host.lastReported.keys()]) if (!byAccess.has(id)) host.lastReported.delete(id);
  for (const [accessId, found] of byAccess) {
    const listed = found.slice(0, MAX_REPORTED).map((d) => ({ kind: d.kind, what: d.what }));
    const signature = JSON.stringify(listed);
    if (reportOnly && host.lastReported.get(accessId) === signature) continue;
    host.lastReported.set(accessId, signature);
    const ended = found.some((d) => d.kind === "ended-access");
    const failure = failures.get(accessId);
    const report = host.reporter(accessId);
    const more = found.length > MAX_REPORTED ? { more: found.length - MAX_REPORTED } : {};
    if (!ended && wanted.get(accessId) === null && failure === undefined && !reportOnly) {
      const message = "The access's output port is no longer one the connector may grant on; its grant was revoked.";
      await report("provisioning-failed", { diagnostics: { message, drift: listed, ...more } });
    } else if (reportOnly) {
      const message = "Reconciliation found drift and left it as it is (report only).";
      await report(ended ? "deprovisioning-failed" : "provisioning-failed", { diagnostics: { message, drift: listed, ...more } });
    } else if (failure !== undefined) {
      await report(ended ? "deprovisioning-failed" : "provisioning-failed", { diagnostics: { ...host.diagnosticsOf(failure), drift: listed, ...more } });
    } else {
      const message = ended ? "Reconciliation revoked a grant left for an ended access." : "Reconciliation found drift and repaired it.";
      const target = ended ? entryOf.get(accessId) : (wanted.get(accessId) ?? entryOf.get(accessId));
      const reference = target ? (ended ? host.revokeStatement(target) : host.grantStatement(target)) : undefined;
      await report(ended ? "deprovisioning-succeeded" : "provisioning-succeeded", { ...(reference ? { reference } : {}), diagnostics: { message, drift: listed, ...more } });
    }
  }
}
