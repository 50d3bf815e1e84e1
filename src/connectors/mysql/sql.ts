import { maskViewName } from "../postgres/grants.js";
import type { Membership } from "../postgres/config.js";
import type { TableGrant, Target } from "../postgres/trust.js";
import type { Run } from "./connections.js";

/** A quoted identifier: backticks, with a backtick inside doubled. */
export const q = (name: string): string => `\`${name.replace(/`/g, "``")}\``;

const object = (t: Pick<Target, "schema" | "table">) => (t.table === null ? `${q(t.schema)}.*` : `${q(t.schema)}.${q(t.table)}`);

function grantStatements(target: Target, maskSchema: string): string[] {
  if (!target.grants) return [`GRANT SELECT ON ${object(target)} TO ${q(target.role)}`];
  return target.grants.flatMap((g) => {
    const on = `${q(target.schema)}.${q(g.table)}`;
    const out: string[] = [];
    if (g.columns === null) out.push(`GRANT SELECT ON ${on} TO ${q(target.role)}`);
    else if (g.columns.length > 0) out.push(`GRANT SELECT (${g.columns.map(q).join(", ")}) ON ${on} TO ${q(target.role)}`);
    if (g.masked.length > 0) out.push(`GRANT SELECT ON ${q(maskSchema)}.${q(maskViewName(target.role, target.schema, g.table))} TO ${q(target.role)}`);
    return out;
  });
}

/** What a provisioning report names as the grant. */
export function mysqlGrantStatement(target: Target, maskSchema: string): string {
  return grantStatements(target, maskSchema).join("; ");
}

/**
 * MySQL keeps table, column and view privileges apart, and keeps a view's privileges after the
 * view is dropped: each is revoked on its own.
 */
function revokeStatements(target: Target, maskSchema: string): string[] {
  if (!target.grants) return [`REVOKE SELECT ON ${object(target)} FROM ${q(target.role)}`];
  return target.grants.flatMap((g) => {
    const on = `${q(target.schema)}.${q(g.table)}`;
    const out: string[] = [];
    if (g.columns === null) out.push(`REVOKE SELECT ON ${on} FROM ${q(target.role)}`);
    else if (g.columns.length > 0) out.push(`REVOKE SELECT (${g.columns.map(q).join(", ")}) ON ${on} FROM ${q(target.role)}`);
    if (g.masked.length > 0) out.push(`REVOKE SELECT ON ${q(maskSchema)}.${q(maskViewName(target.role, target.schema, g.table))} FROM ${q(target.role)}`);
    return out;
  });
}

export function mysqlRevokeStatement(target: Target, maskSchema: string): string {
  return revokeStatements(target, maskSchema).join("; ");
}

const TEXT_TYPES = new Set(["char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"]);

async function createMaskView(run: Run, target: Target, grant: TableGrant, maskSchema: string): Promise<void> {
  const types = await run("SELECT COLUMN_NAME AS name, DATA_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", [target.schema, grant.table]);
  const typeOf = new Map(types.map((r) => [String(r.name), String(r.type).toLowerCase()] as const));
  const list = [...(grant.columns ?? []).map((c) => q(c)), ...grant.masked.map((c) => (TEXT_TYPES.has(typeOf.get(c) ?? "") ? `CASE WHEN ${q(c)} IS NULL THEN NULL ELSE '****' END AS ${q(c)}` : `NULL AS ${q(c)}`))];
  const view = `${q(maskSchema)}.${q(maskViewName(target.role, target.schema, grant.table))}`;
  await run(`CREATE DATABASE IF NOT EXISTS ${q(maskSchema)}`);
  await run(`CREATE OR REPLACE SQL SECURITY DEFINER VIEW ${view} AS SELECT ${list.join(", ")} FROM ${q(target.schema)}.${q(grant.table)}`);
  await markView(run, maskSchema, maskViewName(target.role, target.schema, grant.table));
}

/**
 * MariaDB and MySQL keep no comment on a view, so the digest of each masking view as made (its
 * definition, definer and security type, as the server reads them back) is kept in a table of
 * the masking database; reconciliation finds a view changed by hand by comparing it (docs/consumers.md).
 */
export const VIEW_MARKS = "steward_view_marks";

/** The digest of a view as the server reads it back; the same expression on both sides of the comparison. */
export const VIEW_DIGEST = "MD5(CONCAT_WS(':', SECURITY_TYPE, DEFINER, VIEW_DEFINITION))";

async function markView(run: Run, maskSchema: string, name: string): Promise<void> {
  const marks = `${q(maskSchema)}.${q(VIEW_MARKS)}`;
  await run(`CREATE TABLE IF NOT EXISTS ${marks} (view_name VARCHAR(64) NOT NULL PRIMARY KEY, digest CHAR(32) NOT NULL) ENGINE=InnoDB`);
  const made = await run(`SELECT ${VIEW_DIGEST} AS digest FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, [maskSchema, name]);
  await run(`INSERT INTO ${marks} (view_name, digest) VALUES (?, ?) ON DUPLICATE KEY UPDATE digest = VALUES(digest)`, [name, String(made[0]?.digest ?? "")]);
}

/**
 * A member as MariaDB names it: an account `login@host` (split at the last `@`, as a host holds
 * none) is `` `login`@`host` ``; a name without `@` is a role.
 */
export function account(member: string): string {
  const at = member.lastIndexOf("@");
  return at < 0 ? q(member) : `${q(member.slice(0, at))}@${q(member.slice(at + 1))}`;
}

/**
 * The statements that give a membership (and make the role the account's default, so the login
 * holds it without `SET ROLE`), or take one away (and the default with it, if it was that role).
 */
export function membershipStatements(m: Membership, give: boolean, wasDefault = false): string[] {
  const isAccount = m.member.includes("@");
  if (give) return [`GRANT ${q(m.role)} TO ${account(m.member)}`, ...(isAccount ? [`SET DEFAULT ROLE ${q(m.role)} FOR ${account(m.member)}`] : [])];
  return [`REVOKE ${q(m.role)} FROM ${account(m.member)}`, ...(isAccount && wasDefault ? [`SET DEFAULT ROLE NONE FOR ${account(m.member)}`] : [])];
}

/** The accounts (`login@host`) of this list that exist. */
export async function existingAccounts(run: Run, members: readonly string[]): Promise<Set<string>> {
  if (members.length === 0) return new Set();
  const rows = await run("SELECT CONCAT(User, '@', Host) AS member, is_role AS role FROM mysql.user WHERE CONCAT(User, '@', Host) IN (?)", [members]);
  return new Set(rows.filter((r) => r.role === "N").map((r) => String(r.member)));
}

/**
 * Creates the role if missing, makes the configured accounts that exist members of it (their
 * default role), and grants what the target holds. MySQL's GRANT commits at once: the ledger was
 * written first.
 */
export async function mysqlGrant(run: Run, target: Target, maskSchema: string, logins: readonly string[] = []): Promise<void> {
  await run(`CREATE ROLE IF NOT EXISTS ${q(target.role)}`);
  for (const member of [...(await existingAccounts(run, logins))].sort()) {
    for (const statement of membershipStatements({ role: target.role, member }, true)) await run(statement);
  }
  for (const grant of target.grants ?? []) if (grant.masked.length > 0) await createMaskView(run, target, grant, maskSchema);
  for (const statement of grantStatements(target, maskSchema)) await run(statement);
}

/** "There is no such grant": revoking twice is not an error. */
export const NO_SUCH_GRANT = new Set([1141, 1147]);

/** Revokes `target`, drops its masking views, and grants again what other accesses of the role still hold. */
export async function mysqlRevoke(run: Run, target: Target, remaining: readonly Target[], maskSchema: string): Promise<void> {
  const exists = await run("SELECT 1 FROM mysql.user WHERE User = ?", [target.role]).catch(() => [{}]);
  if (exists.length === 0) return;
  for (const statement of revokeStatements(target, maskSchema)) {
    await run(statement).catch((error: { errno?: number }) => {
      if (!NO_SUCH_GRANT.has(error.errno ?? 0)) throw error;
    });
  }
  for (const grant of target.grants ?? []) {
    if (grant.masked.length > 0) await run(`DROP VIEW IF EXISTS ${q(maskSchema)}.${q(maskViewName(target.role, target.schema, grant.table))}`);
  }
  for (const other of remaining) await mysqlGrant(run, other, maskSchema);
}

/** The ledger, as for PostgreSQL: written before a grant, removed after a revoke, in a database the operator chose. */
export class MysqlLedger {
  private ready = false;
  constructor(private readonly database: string) {}

  private get table(): string {
    return `${q(this.database)}.grants`;
  }

  private async ensure(run: Run): Promise<void> {
    if (this.ready) return;
    await run(`CREATE DATABASE IF NOT EXISTS ${q(this.database)}`);
    await run(
      `CREATE TABLE IF NOT EXISTS ${this.table} (
         access_id VARCHAR(255) NOT NULL PRIMARY KEY, server VARCHAR(255) NOT NULL, role VARCHAR(255) NOT NULL,
         schema_name VARCHAR(255) NOT NULL, table_name VARCHAR(255) NULL, privileges LONGTEXT NULL,
         granted_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP) ENGINE=InnoDB`,
    );
    this.ready = true;
  }

  async find(run: Run, accessId: string): Promise<Target | undefined> {
    await this.ensure(run);
    const rows = await run(`SELECT server, role, schema_name, table_name, privileges FROM ${this.table} WHERE access_id = ?`, [accessId]);
    return rows[0] && toTarget(rows[0]);
  }

  async record(run: Run, accessId: string, target: Target): Promise<void> {
    await this.ensure(run);
    await run(
      `INSERT INTO ${this.table} (access_id, server, role, schema_name, table_name, privileges) VALUES (?, ?, ?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE server = VALUES(server), role = VALUES(role), schema_name = VALUES(schema_name), table_name = VALUES(table_name), privileges = VALUES(privileges)`,
      [accessId, target.server, target.role, target.schema, target.table, target.grants ? JSON.stringify(target.grants) : null],
    );
  }

  async remove(run: Run, accessId: string): Promise<void> {
    await this.ensure(run);
    await run(`DELETE FROM ${this.table} WHERE access_id = ?`, [accessId]);
  }

  async all(run: Run): Promise<Array<{ accessId: string; target: Target }>> {
    await this.ensure(run);
    const rows = await run(`SELECT access_id, server, role, schema_name, table_name, privileges FROM ${this.table} ORDER BY access_id`);
    return rows.map((row) => ({ accessId: String(row.access_id), target: toTarget(row) }));
  }

  async others(run: Run, accessId: string, target: Target): Promise<Target[]> {
    await this.ensure(run);
    const rows = await run(`SELECT server, role, schema_name, table_name, privileges FROM ${this.table} WHERE server = ? AND role = ? AND schema_name = ? AND access_id <> ?`, [
      target.server,
      target.role,
      target.schema,
      accessId,
    ]);
    return rows.map(toTarget);
  }
}

function toTarget(row: Record<string, unknown>): Target {
  const target: Target = { server: String(row.server), role: String(row.role), schema: String(row.schema_name), table: row.table_name === null ? null : String(row.table_name) };
  if (row.privileges !== null && row.privileges !== undefined) target.grants = JSON.parse(String(row.privileges)) as TableGrant[];
  return target;
}
