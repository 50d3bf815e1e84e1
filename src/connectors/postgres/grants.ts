import { createHash } from "node:crypto";
import pg from "pg";
import { inTransaction } from "./connections.js";
import type { TableGrant, Target } from "./trust.js";

/** The GRANT and REVOKE statements of the connector; every name is quoted by pg's own escaping. */

const ident = pg.escapeIdentifier;

function object(target: Pick<Target, "schema" | "table">): string {
  return target.table === null ? `ALL TABLES IN SCHEMA ${ident(target.schema)}` : `${ident(target.schema)}.${ident(target.table)}`;
}

/**
 * The masking view of a role on a table, in the schema the connector owns for them: named after
 * the table and a hash of (role, schema, table), so two roles, or two schemas, never share one.
 */
export function maskViewName(role: string, schema: string, table: string): string {
  const hash = createHash("sha256").update(JSON.stringify([role, schema, table]), "utf8").digest("hex").slice(0, 12);
  return `${table.slice(0, 40)}__${hash}`;
}

function columnGrant(schema: string, grant: TableGrant, role: string): string | undefined {
  const on = `${ident(schema)}.${ident(grant.table)}`;
  if (grant.columns === null) return `GRANT SELECT ON ${on} TO ${ident(role)}`;
  if (grant.columns.length === 0) return undefined;
  return `GRANT SELECT (${grant.columns.map(ident).join(", ")}) ON ${on} TO ${ident(role)}`;
}

/** What a provisioning report names as the grant: the statements, masking views by name. */
export function grantStatement(target: Target, maskSchema = "steward_masked"): string {
  if (!target.grants) return `GRANT SELECT ON ${object(target)} TO ${ident(target.role)}`;
  return target.grants
    .flatMap((g) => [
      columnGrant(target.schema, g, target.role),
      g.masked.length > 0 ? `GRANT SELECT ON ${ident(maskSchema)}.${ident(maskViewName(target.role, target.schema, g.table))} TO ${ident(target.role)}` : undefined,
    ])
    .filter((s): s is string => s !== undefined)
    .join("; ");
}

function revokeStatements(target: Target): string[] {
  if (!target.grants) return [`REVOKE SELECT ON ${object(target)} FROM ${ident(target.role)}`];
  return target.grants.map((g) => `REVOKE SELECT ON ${ident(target.schema)}.${ident(g.table)} FROM ${ident(target.role)}`);
}

export function revokeStatement(target: Target): string {
  return revokeStatements(target).join("; ");
}

async function roleExists(client: pg.Client, role: string): Promise<boolean> {
  return ((await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role])).rowCount ?? 0) > 0;
}

/** The comment a masking view carries: this prefix and the digest of its definition. */
export const VIEW_MARK = "steward masking view ";

const TEXT_TYPES = new Set(["text", "character varying", "character", "citext", "name"]);

/**
 * The masking view: the granted columns as they are, each masked column as `'****'` when it is
 * text and not null, else as a null of its type. Read with the view owner's (the connector's)
 * privileges, so the role needs no privilege on the table's masked columns.
 */
async function createMaskView(client: pg.Client, target: Target, grant: TableGrant, maskSchema: string): Promise<void> {
  const types = await client.query<{ name: string; type: string; base: string }>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, format_type(a.atttypid, NULL) AS base
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
    [target.schema, grant.table],
  );
  const typeOf = new Map(types.rows.map((r) => [r.name, r] as const));
  const wanted = grant.columns === null ? [] : grant.columns;
  const selected = [...wanted.map((c) => ({ name: c, masked: false })), ...grant.masked.map((c) => ({ name: c, masked: true }))];
  const list = selected.map(({ name, masked }) => {
    const column = typeOf.get(name);
    // A column the table lacks fails when the view is made, as a GRANT on it would: nothing half-made stays.
    if (!column || !masked) return ident(name);
    return TEXT_TYPES.has(column.base)
      ? `CASE WHEN ${ident(name)} IS NULL THEN NULL ELSE '****' END AS ${ident(name)}`
      : `NULL::${column.type} AS ${ident(name)}`;
  });
  const view = `${ident(maskSchema)}.${ident(maskViewName(target.role, target.schema, grant.table))}`;
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${ident(maskSchema)}`);
  await client.query(`DROP VIEW IF EXISTS ${view}`);
  await client.query(`CREATE VIEW ${view} AS SELECT ${list.join(", ")} FROM ${ident(target.schema)}.${ident(grant.table)}`);
  // The definition's digest, as made: reconciliation finds a view changed by hand by comparing it (drift.ts).
  const made = await client.query<{ digest: string }>("SELECT md5(pg_get_viewdef($1::regclass)) AS digest", [view]);
  await client.query(`COMMENT ON VIEW ${view} IS ${pg.escapeLiteral(`${VIEW_MARK}${made.rows[0]!.digest}`)}`);
  await client.query(`GRANT USAGE ON SCHEMA ${ident(maskSchema)} TO ${ident(target.role)}`);
  await client.query(`GRANT SELECT ON ${view} TO ${ident(target.role)}`);
}

/** The statements of one grant, inside the caller's transaction. */
async function grantInside(client: pg.Client, target: Target, maskSchema: string): Promise<void> {
  await client.query(`GRANT USAGE ON SCHEMA ${ident(target.schema)} TO ${ident(target.role)}`);
  if (!target.grants) {
    await client.query(grantStatement(target));
    return;
  }
  for (const grant of target.grants) {
    const statement = columnGrant(target.schema, grant, target.role);
    if (statement) await client.query(statement);
    if (grant.masked.length > 0) await createMaskView(client, target, grant, maskSchema);
  }
}

/**
 * Creates the role (NOLOGIN) if missing, makes the configured logins that exist members of it,
 * and grants USAGE on the schema and what the target holds, in one transaction.
 */
export async function applyGrant(client: pg.Client, target: Target, maskSchema = "steward_masked", logins: readonly string[] = []): Promise<void> {
  await inTransaction(client, async () => {
    if (!(await roleExists(client, target.role))) await client.query(`CREATE ROLE ${ident(target.role)} NOLOGIN`);
    if (logins.length > 0) {
      const existing = await client.query<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE rolname = ANY($1::text[]) ORDER BY rolname", [logins]);
      for (const { rolname } of existing.rows) await client.query(`GRANT ${ident(target.role)} TO ${ident(rolname)}`);
    }
    await grantInside(client, target, maskSchema);
  });
}

/**
 * Revokes `target` (a table's column privileges go with its table privilege), drops its masking
 * views, then grants again what other accesses of the same role still hold in that schema
 * (`remaining`, from the ledger), so ending one access never takes another's privilege.
 */
export async function applyRevoke(client: pg.Client, target: Target, remaining: readonly Target[], maskSchema = "steward_masked"): Promise<void> {
  await inTransaction(client, async () => {
    if (!(await roleExists(client, target.role))) return;
    for (const statement of revokeStatements(target)) await client.query(statement);
    for (const grant of target.grants ?? []) {
      if (grant.masked.length > 0) await client.query(`DROP VIEW IF EXISTS ${ident(maskSchema)}.${ident(maskViewName(target.role, target.schema, grant.table))}`);
    }
    for (const other of remaining) await grantInside(client, other, maskSchema);
    if (remaining.length === 0) await client.query(`REVOKE USAGE ON SCHEMA ${ident(target.schema)} FROM ${ident(target.role)}`);
  });
}
