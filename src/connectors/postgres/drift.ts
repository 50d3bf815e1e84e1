/**
 * Drift (docs/consumers.md, "Reconciliation"): the differences between what the ledger and the
 * active accesses say the connector's roles should hold and what one read of the server's
 * catalogs shows they hold. A pure function of its inputs, so every drift kind is tested without
 * a database; the reconciler reads the inputs and repairs what this finds.
 */
import { maskViewName } from "./grants.js";
import type { Membership } from "./config.js";
import { sameTarget, type Target } from "./trust.js";

/** One privilege of one role, as the catalogs hold it. */
export interface Privilege {
  role: string;
  on: "schema" | "table" | "column";
  schema: string;
  table?: string;
  column?: string;
  /** `SELECT`, `USAGE`, `INSERT`… as aclexplode names it. */
  privilege: string;
}

export interface CatalogState {
  /** The managed roles that exist. */
  roles: ReadonlySet<string>;
  /** What those roles hold. */
  privileges: readonly Privilege[];
  /** The tables (and views) of each schema a whole-schema grant covers. */
  tables: ReadonlyMap<string, readonly string[]>;
  /** Masking views whose definition is no longer the one the connector made (`<schema>.<view>`). */
  changedViews: ReadonlySet<string>;
  /** Memberships in the managed roles and of them (`pg_auth_members`); absent where the engine has none to read. */
  memberships?: readonly Membership[];
  /** Which of the configured logins exist. */
  logins?: ReadonlySet<string>;
}

export type DriftKind = "extra-privilege" | "missing-privilege" | "dropped-role" | "ended-access" | "replanned" | "changed-mask-view" | "removed-membership" | "extra-membership";

export interface Drift {
  kind: DriftKind;
  role: string;
  /** The accesses it concerns: the one it is about, or every active access of the role for a privilege added by hand. */
  accessIds: string[];
  /** What and where, for people: `SELECT on column shop.people.ssn`. */
  what: string;
  privilege?: Privilege;
  membership?: Membership;
}

export interface LedgerEntry {
  accessId: string;
  target: Target;
}

export interface DriftInput {
  /** The ledger's entries on this server. */
  entries: readonly LedgerEntry[];
  /** The accesses active now that this connector serves on this server, with what they should hold; `null`: refused. */
  desired: ReadonlyMap<string, Target | null>;
  catalog: CatalogState;
  maskSchema: string;
  /** What a target makes its role hold, when the engine's privileges differ from PostgreSQL's. */
  expected?: typeof expectedPrivileges;
  /** The configuration's memberships; `undefined`: logins' memberships are the operator's to keep. */
  members?: readonly Membership[];
}

export const privilegeKey = (p: Privilege): string => JSON.stringify([p.role, p.on, p.schema, p.table ?? null, p.column ?? null, p.privilege]);

export function describePrivilege(p: Privilege): string {
  const where = p.on === "schema" ? `schema ${p.schema}` : p.on === "table" ? `table ${p.schema}.${p.table}` : `column ${p.schema}.${p.table}.${p.column}`;
  return `${p.privilege} on ${where} for role ${p.role}`;
}

/** What a target makes its role hold on the server. */
export function expectedPrivileges(target: Target, tablesOf: (schema: string) => readonly string[], maskSchema: string): Privilege[] {
  const { role, schema } = target;
  const out: Privilege[] = [{ role, on: "schema", schema, privilege: "USAGE" }];
  if (!target.grants) {
    const tables = target.table === null ? tablesOf(schema) : [target.table];
    for (const table of tables) out.push({ role, on: "table", schema, table, privilege: "SELECT" });
    return out;
  }
  for (const grant of target.grants) {
    if (grant.columns === null) out.push({ role, on: "table", schema, table: grant.table, privilege: "SELECT" });
    else for (const column of grant.columns) out.push({ role, on: "column", schema, table: grant.table, column, privilege: "SELECT" });
    if (grant.masked.length > 0) {
      out.push({ role, on: "schema", schema: maskSchema, privilege: "USAGE" });
      out.push({ role, on: "table", schema: maskSchema, table: maskViewName(role, schema, grant.table), privilege: "SELECT" });
    }
  }
  return out;
}

const postgresPrivileges = (...args: Parameters<typeof expectedPrivileges>) => expectedPrivileges(...args);

/** Every difference, in a stable order: ended and re-planned accesses, dropped roles, then privileges. */
export function findDrift(input: DriftInput): Drift[] {
  const { entries, desired, catalog, maskSchema } = input;
  const expectedPrivileges = input.expected ?? postgresPrivileges;
  const tablesOf = (schema: string) => catalog.tables.get(schema) ?? [];
  const drift: Drift[] = [];
  const active: LedgerEntry[] = [];
  const settled: LedgerEntry[] = [];
  for (const entry of entries) {
    const wanted = desired.get(entry.accessId);
    if (wanted === undefined) drift.push({ kind: "ended-access", role: entry.target.role, accessIds: [entry.accessId], what: `a grant left for ended access ${entry.accessId}` });
    else {
      active.push(entry);
      if (wanted === null || !sameTarget(wanted, entry.target)) drift.push({ kind: "replanned", role: entry.target.role, accessIds: [entry.accessId], what: `the grant of access ${entry.accessId} is no longer what its privileges plan allows` });
      else settled.push(entry);
    }
  }
  const recorded = new Set(entries.map((e) => e.accessId));
  for (const [accessId, wanted] of desired) {
    if (wanted !== null && !recorded.has(accessId)) drift.push({ kind: "missing-privilege", role: wanted.role, accessIds: [accessId], what: `active access ${accessId} has no grant` });
  }

  const dropped = new Set<string>();
  for (const entry of settled) {
    if (catalog.roles.has(entry.target.role)) continue;
    dropped.add(entry.target.role);
    drift.push({ kind: "dropped-role", role: entry.target.role, accessIds: [entry.accessId], what: `role ${entry.target.role} of access ${entry.accessId} no longer exists` });
  }

  // What the roles may hold: every recorded grant, ended ones too (they are revoked as ended, not as extra).
  const allowed = new Set(entries.flatMap((e) => expectedPrivileges(e.target, tablesOf, maskSchema)).map(privilegeKey));
  const activeOf = (role: string) => active.filter((e) => e.target.role === role).map((e) => e.accessId);
  for (const p of catalog.privileges) {
    if (!allowed.has(privilegeKey(p))) drift.push({ kind: "extra-privilege", role: p.role, accessIds: activeOf(p.role), what: `${describePrivilege(p)}, which no grant of the connector holds`, privilege: p });
  }
  const held = new Set(catalog.privileges.map(privilegeKey));
  for (const entry of settled) {
    if (dropped.has(entry.target.role)) continue;
    for (const p of expectedPrivileges(entry.target, tablesOf, maskSchema)) {
      if (!held.has(privilegeKey(p))) drift.push({ kind: "missing-privilege", role: p.role, accessIds: [entry.accessId], what: `${describePrivilege(p)} is missing`, privilege: p });
    }
    for (const grant of entry.target.grants ?? []) {
      const view = `${maskSchema}.${maskViewName(entry.target.role, entry.target.schema, grant.table)}`;
      if (grant.masked.length > 0 && catalog.changedViews.has(view)) drift.push({ kind: "changed-mask-view", role: entry.target.role, accessIds: [entry.accessId], what: `masking view ${view} was changed` });
    }
  }
  drift.push(...membershipDrift(input, active, dropped, activeOf));
  return drift;
}

/**
 * Memberships: a configured login missing from a role the ledger names (removed by hand), and
 * a membership the scheme never makes — a managed role made a member of any role, or, where the
 * configuration lists the members, a login it does not list.
 */
function membershipDrift(input: DriftInput, active: readonly LedgerEntry[], dropped: ReadonlySet<string>, activeOf: (role: string) => string[]): Drift[] {
  const { catalog, members } = input;
  const held = catalog.memberships ?? [];
  const key = (m: Membership) => JSON.stringify([m.role, m.member]);
  const drift: Drift[] = [];
  const holding = new Set(held.map(key));
  const roles = new Set(active.map((e) => e.target.role).filter((role) => !dropped.has(role)));
  for (const m of members ?? []) {
    if (!roles.has(m.role) || !(catalog.logins?.has(m.member) ?? false) || holding.has(key(m))) continue;
    drift.push({ kind: "removed-membership", role: m.role, accessIds: activeOf(m.role), what: `login ${m.member} is no longer a member of role ${m.role}`, membership: m });
  }
  const wanted = new Set((members ?? []).map(key));
  for (const m of held) {
    if (catalog.roles.has(m.member)) {
      drift.push({ kind: "extra-membership", role: m.member, accessIds: activeOf(m.member), what: `role ${m.member} was made a member of role ${m.role}, which the connector never does`, membership: m });
    } else if (members !== undefined && catalog.roles.has(m.role) && !wanted.has(key(m))) {
      drift.push({ kind: "extra-membership", role: m.role, accessIds: activeOf(m.role), what: `${m.member} was made a member of role ${m.role}, which the configuration does not list`, membership: m });
    }
  }
  return drift;
}
