import { createHash } from "node:crypto";
import type { ConnectorConfig, Grantable } from "./config.js";
import type { ServerReference } from "./catalog.js";
import type { PrivilegesPlan } from "../../privileges/plan.js";

/**
 * The trust decisions of the connector (docs/product.md §7): the catalog picks *who* and *which port*,
 * the operator's configuration alone decides *where* and *on what*, and role names come from a
 * fixed scheme. Pure functions, so every rule is tested without a database.
 */

/**
 * What the privileges plan grants on one table: its whole table (`columns: null`) or some of its
 * columns, and the columns read through a masking view.
 */
export interface TableGrant {
  table: string;
  columns: string[] | null;
  masked: string[];
}

/** What one access is granted: SELECT on one table, or on every table of a schema, of a configured server. */
export interface Target {
  /** The configuration's name of the server (never a document's host). */
  server: string;
  schema: string;
  /** `null`: every table of the schema. */
  table: string | null;
  role: string;
  /**
   * Absent: SELECT on the object, whole (no plan narrows it). Present: exactly these tables and
   * columns of the schema, as the access's privileges plan says (docs/consumers.md).
   */
  grants?: TableGrant[];
}

/** Why the connector will not act on a port; its message is reported on the access. */
export class Refusal extends Error {
  override readonly name = "Refusal";
}

export type Grantee = { team: string } | { user: string };

export const ROLE_PREFIX = "steward_";
const MAX_SAFE_PART = 36;

/**
 * `steward_team_<id>` or `steward_user_<id>`. An id that is not already lower-case letters,
 * digits and `_` (or is long) is folded to those and gets `$` and a hash of the original, so two
 * ids never share a role and no id can reach a role outside the prefix. At most 63 bytes, pg's limit.
 */
export function roleFor(grantee: Grantee): string {
  const [kind, id] = "team" in grantee ? ["team", grantee.team] : ["user", grantee.user];
  const folded = id.toLowerCase().replace(/[^a-z0-9_]/g, "_").slice(0, MAX_SAFE_PART);
  const exact = folded === id;
  // `$` cannot occur in an id that is kept as it is, so a folded id never meets a kept one.
  const suffix = exact ? "" : `$${createHash("sha256").update(id, "utf8").digest("hex").slice(0, 10)}`;
  return `${ROLE_PREFIX}${kind}_${folded}${suffix}`;
}

function covers(entry: Grantable, team: string, schema: string, table: string | null): boolean {
  if (entry.team !== team || entry.schema !== schema) return false;
  return entry.table === undefined || entry.table === table;
}

/** A document's text inside a reported reason: cut short, so a huge name cannot make a huge report. */
function shown(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function describeObject(schema: string, table: string | null): string {
  return shown(table === null ? `schema '${schema}'` : `table '${schema}.${table}'`);
}

/**
 * Where and what to grant for a port of `owner`'s data product, or a {@link Refusal}. The port's
 * `server.host` only names an entry of the configuration; its object must be in that entry's
 * `grantable` list for the owner team (a whole-schema entry covers its tables, a table entry
 * only that table).
 */
export function decideTarget(config: ConnectorConfig, owner: string | undefined, reference: ServerReference, role: string): Target {
  if (!reference.name || !reference.schema) {
    throw new Refusal("The output port's server needs host (the name of a server in the connector's configuration) and schema.");
  }
  const server = config.servers.get(reference.name);
  if (!server) throw new Refusal(`The server '${shown(reference.name)}' is not in the connector's configuration; the connector only acts on configured servers.`);
  if (reference.database !== undefined && reference.database !== server.connection.database) {
    throw new Refusal(`The output port names database '${shown(reference.database)}', but the configured server '${server.name}' is another database.`);
  }
  const table = reference.table ?? null;
  const object = describeObject(reference.schema, table);
  if (!owner) throw new Refusal("The data product names no owner team, so nothing on it may be granted.");
  if (!server.grantable.some((entry) => covers(entry, owner, reference.schema!, table))) {
    throw new Refusal(`Team '${shown(owner)}' may not grant ${object} on server '${server.name}': the connector's configuration does not give it that object.`);
  }
  return { server: server.name, schema: reference.schema, table, role };
}

export function sameTarget(a: Target, b: Target): boolean {
  return a.server === b.server && a.schema === b.schema && a.table === b.table && a.role === b.role && JSON.stringify(a.grants ?? null) === JSON.stringify(b.grants ?? null);
}

/**
 * Narrows a trusted target to what the access's privileges plan allows. The plan's objects come
 * from the same port the target was decided from; any object outside the target's schema (or,
 * for a table port, outside its table) is ignored, so a plan can never widen a grant.
 */
export function narrowToPlan(target: Target, plan: PrivilegesPlan): Target {
  const objects = plan.objects.filter((o) => o.server === target.server && o.schema === target.schema && (target.table === null || o.table === target.table));
  if (objects.length === 1 && objects[0]!.scope === "schema" && target.table === null) return target;
  const grants: TableGrant[] = [];
  for (const o of objects) {
    if (o.table === null || o.scope === "none" || o.scope === "schema") continue;
    const granted = o.columns.filter((c) => c.decision === "granted").map((c) => c.name);
    const masked = o.columns.filter((c) => c.decision === "masked").map((c) => c.name);
    grants.push({ table: o.table, columns: o.scope === "table" ? null : granted, masked: o.scope === "table" ? [] : masked });
  }
  // A table port whose every column is granted is the plain grant of today.
  if (target.table !== null && grants.length === 1 && grants[0]!.columns === null) return target;
  if (grants.length === 0) throw new Refusal("The access's privileges plan allows no column of this output port, so nothing was granted.");
  return { ...target, grants };
}
