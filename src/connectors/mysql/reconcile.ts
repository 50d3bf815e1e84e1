/**
 * What reconciliation reads and changes on MariaDB/MySQL (docs/consumers.md, "Reconciliation"):
 * one statement over `mysql.user`, `mysql.db`, `mysql.tables_priv` and `mysql.columns_priv` for
 * the roles the ledger names, the masking views' digests against those recorded when they were made, the privileges a recorded grant means there, and the statement that
 * takes one privilege added by hand away again.
 */
import type { Membership } from "../postgres/config.js";
import type { CatalogState, Privilege } from "../postgres/drift.js";
import { maskViewName } from "../postgres/grants.js";
import type { Target } from "../postgres/trust.js";
import type { Run } from "./connections.js";
import { q, VIEW_DIGEST, VIEW_MARKS } from "./sql.js";

const DB_PRIVILEGES = ["Select", "Insert", "Update", "Delete", "Create", "Drop", "Alter", "Index", "Create_view", "Show_view", "Trigger", "References", "Lock_tables"];

/** What reconciliation needs to judge memberships: the configured ones, and the connector's own user (it holds the roles it makes). */
export interface MembershipScope {
  members?: readonly Membership[];
  self: string;
}

export async function readMysqlCatalog(run: Run, roles: readonly string[], maskSchema: string, scope: MembershipScope = { self: "" }): Promise<CatalogState> {
  const privileges: Privilege[] = [];
  const found = new Set<string>();
  if (roles.length > 0) {
    const flags = DB_PRIVILEGES.map((p) => `IF(${p}_priv = 'Y', '${p.replace("_", " ")}', NULL)`).join(", ");
    const rows = await run(
      `SELECT 'role' AS kind, User AS role, NULL AS db, NULL AS tbl, NULL AS col, NULL AS privs FROM mysql.user WHERE User IN (?)
       UNION ALL SELECT 'schema', User, Db, NULL, NULL, CONCAT_WS(',', ${flags}) FROM mysql.db WHERE User IN (?)
       UNION ALL SELECT 'table', User, Db, Table_name, NULL, Table_priv FROM mysql.tables_priv WHERE User IN (?)
       UNION ALL SELECT 'column', User, Db, Table_name, Column_name, Column_priv FROM mysql.columns_priv WHERE User IN (?)`,
      [roles, roles, roles, roles],
    );
    for (const row of rows) {
      const role = String(row.role);
      if (row.kind === "role") {
        found.add(role);
        continue;
      }
      for (const name of String(row.privs ?? "").split(",").filter(Boolean)) {
        const p: Privilege = { role, on: row.kind as Privilege["on"], schema: String(row.db), privilege: name.toUpperCase() };
        if (row.tbl !== null) p.table = String(row.tbl);
        if (row.col !== null) p.column = String(row.col);
        privileges.push(p);
      }
    }
  }
  const memberships = roles.length > 0 ? await readMemberships(run, roles, scope) : {};
  return { roles: found, privileges, tables: new Map(), changedViews: await changedViews(run, maskSchema), ...memberships };
}

// The columns `mysql.user` computes (is_role, default_role) are compared here, not in SQL: their
// collation is not the connection's, and MariaDB refuses to compare the two.

/** "Table doesn't exist": a server without `mysql.roles_mapping` (not MariaDB). */
const NO_SUCH_TABLE = 1146;

/**
 * Memberships in and of the managed roles (`mysql.roles_mapping`, MariaDB), less the connector's
 * own, and which configured accounts exist. A configured account counts as a member only while
 * the role is its default role, since without it the login does not hold the role when it
 * connects. Without `mysql.roles_mapping` nothing is read, so no membership drift is found.
 */
async function readMemberships(run: Run, roles: readonly string[], scope: MembershipScope): Promise<Pick<CatalogState, "memberships" | "logins">> {
  const configured = (scope.members ?? []).map((m) => m.member);
  let rows: Array<Record<string, unknown>>;
  try {
    rows = await run(
      `SELECT 'member' AS kind, m.Role AS role, m.User AS user, m.Host AS host, u.default_role AS def
         FROM mysql.roles_mapping m LEFT JOIN mysql.user u ON u.User = m.User AND u.Host = m.Host
        WHERE (m.Role IN (?) OR (m.Host = '' AND m.User IN (?))) AND m.User <> ?
       UNION ALL SELECT 'login', is_role, User, Host, NULL FROM mysql.user WHERE CONCAT(User, '@', Host) IN (?)`,
      [roles, roles, scope.self, configured.length > 0 ? configured : [""]],
    );
  } catch (error) {
    if ((error as { errno?: number }).errno === NO_SUCH_TABLE) return {};
    throw error;
  }
  const wanted = new Set((scope.members ?? []).map((m) => JSON.stringify([m.role, m.member])));
  const memberships: Membership[] = [];
  const logins = new Set<string>();
  for (const row of rows) {
    const host = String(row.host);
    const member = host === "" ? String(row.user) : `${String(row.user)}@${host}`;
    if (row.kind === "login") {
      if (row.role === "N") logins.add(member);
    }
    else if (!wanted.has(JSON.stringify([String(row.role), member])) || String(row.def ?? "") === String(row.role)) memberships.push({ role: String(row.role), member });
  }
  return { memberships, logins };
}

/** Whether `member` (an account) has `role` as its default role now. */
export async function isDefaultRole(run: Run, m: Membership): Promise<boolean> {
  const at = m.member.lastIndexOf("@");
  if (at < 0) return false;
  const rows = await run("SELECT default_role AS role FROM mysql.user WHERE User = ? AND Host = ?", [m.member.slice(0, at), m.member.slice(at + 1)]);
  return rows.some((r) => r.role === m.role);
}

/** The masking views whose digest is not the one recorded when the connector made them (a view never marked counts as changed). */
async function changedViews(run: Run, maskSchema: string): Promise<Set<string>> {
  const views = await run(`SELECT TABLE_NAME AS name, ${VIEW_DIGEST} AS digest FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?`, [maskSchema]);
  if (views.length === 0) return new Set();
  const marked = await run("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", [maskSchema, VIEW_MARKS]);
  const marks = marked.length === 0 ? [] : await run(`SELECT view_name AS name, digest FROM ${q(maskSchema)}.${q(VIEW_MARKS)}`);
  const digestOf = new Map(marks.map((m) => [String(m.name), String(m.digest)] as const));
  return new Set(views.filter((v) => digestOf.get(String(v.name)) !== String(v.digest)).map((v) => `${maskSchema}.${String(v.name)}`));
}

/** What a target makes its role hold on MySQL: no schema USAGE there, and a database grant covers tables made later. */
export function mysqlPrivileges(target: Target, _tablesOf: (schema: string) => readonly string[], maskSchema: string): Privilege[] {
  const { role, schema } = target;
  if (!target.grants) return [target.table === null ? { role, on: "schema", schema, privilege: "SELECT" } : { role, on: "table", schema, table: target.table, privilege: "SELECT" }];
  return target.grants.flatMap((g): Privilege[] => [
    ...(g.columns === null
      ? [{ role, on: "table", schema, table: g.table, privilege: "SELECT" } as Privilege]
      : g.columns.map((column): Privilege => ({ role, on: "column", schema, table: g.table, column, privilege: "SELECT" }))),
    ...(g.masked.length > 0 ? [{ role, on: "table", schema: maskSchema, table: maskViewName(role, schema, g.table), privilege: "SELECT" } as Privilege] : []),
  ]);
}

export function mysqlRevokeOne(p: Privilege): string {
  if (!/^[A-Z ]+$/.test(p.privilege)) throw new Error(`unexpected privilege name ${JSON.stringify(p.privilege)}`);
  if (p.on === "schema") return `REVOKE ${p.privilege} ON ${q(p.schema)}.* FROM ${q(p.role)}`;
  const table = `${q(p.schema)}.${q(p.table!)}`;
  if (p.on === "table") return `REVOKE ${p.privilege} ON ${table} FROM ${q(p.role)}`;
  return `REVOKE ${p.privilege} (${q(p.column!)}) ON ${table} FROM ${q(p.role)}`;
}
