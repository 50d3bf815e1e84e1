import pg from "pg";
import { inTransaction } from "./connections.js";
import type { Target } from "./trust.js";

/** The GRANT and REVOKE statements of the connector; every name is quoted by pg's own escaping. */

const ident = pg.escapeIdentifier;

function object(target: Pick<Target, "schema" | "table">): string {
  return target.table === null ? `ALL TABLES IN SCHEMA ${ident(target.schema)}` : `${ident(target.schema)}.${ident(target.table)}`;
}

export function grantStatement(target: Target): string {
  return `GRANT SELECT ON ${object(target)} TO ${ident(target.role)}`;
}

export function revokeStatement(target: Target): string {
  return `REVOKE SELECT ON ${object(target)} FROM ${ident(target.role)}`;
}

async function roleExists(client: pg.Client, role: string): Promise<boolean> {
  return ((await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role])).rowCount ?? 0) > 0;
}

/** Creates the role (NOLOGIN) if missing, and grants USAGE on the schema and SELECT on the object, in one transaction. */
export async function applyGrant(client: pg.Client, target: Target): Promise<void> {
  await inTransaction(client, async () => {
    if (!(await roleExists(client, target.role))) await client.query(`CREATE ROLE ${ident(target.role)} NOLOGIN`);
    await client.query(`GRANT USAGE ON SCHEMA ${ident(target.schema)} TO ${ident(target.role)}`);
    await client.query(grantStatement(target));
  });
}

/**
 * Revokes `target`, then grants again what other accesses of the same role still hold in that
 * schema (`remaining`, from the ledger), so ending one access never takes another's privilege.
 */
export async function applyRevoke(client: pg.Client, target: Target, remaining: readonly Target[]): Promise<void> {
  await inTransaction(client, async () => {
    if (!(await roleExists(client, target.role))) return;
    await client.query(revokeStatement(target));
    for (const other of remaining) await client.query(grantStatement(other));
    if (remaining.length === 0) await client.query(`REVOKE USAGE ON SCHEMA ${ident(target.schema)} FROM ${ident(target.role)}`);
  });
}
