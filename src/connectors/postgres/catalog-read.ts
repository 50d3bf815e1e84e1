import pg from "pg";
import type { Membership } from "./config.js";
import type { CatalogState, Privilege } from "./drift.js";
import { VIEW_MARK } from "./grants.js";

/** Relations a grant on a table (and `ALL TABLES IN SCHEMA`) covers: tables, views, materialized views, foreign and partitioned tables. */
const RELATIONS = "('r','v','m','f','p')";

/**
 * One statement that reads back everything reconciliation compares (docs/consumers.md): which of
 * the managed roles exist, every privilege they hold on schemas, relations and columns
 * (`aclexplode` over `pg_namespace`, `pg_class` and `pg_attribute`), the relations of the schemas
 * whole-schema grants cover, whether each masking view still has the definition it was made with,
 * the memberships in and of the managed roles (`pg_auth_members`), and which configured logins exist.
 */
const CATALOG_SQL = `
WITH managed AS (SELECT oid, rolname FROM pg_roles WHERE rolname = ANY($1::text[]))
SELECT 'role' AS kind, rolname AS role, NULL::name AS schema_name, NULL::name AS table_name, NULL::name AS column_name, NULL::text AS privilege FROM managed
UNION ALL
SELECT 'privilege', m.rolname, n.nspname, NULL, NULL, a.privilege_type
  FROM pg_namespace n CROSS JOIN LATERAL aclexplode(n.nspacl) a JOIN managed m ON m.oid = a.grantee
 WHERE n.nspacl IS NOT NULL
UNION ALL
SELECT 'privilege', m.rolname, n.nspname, c.relname, NULL, a.privilege_type
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace CROSS JOIN LATERAL aclexplode(c.relacl) a JOIN managed m ON m.oid = a.grantee
 WHERE c.relacl IS NOT NULL AND c.relkind IN ${RELATIONS}
UNION ALL
SELECT 'privilege', m.rolname, n.nspname, c.relname, att.attname, a.privilege_type
  FROM pg_attribute att JOIN pg_class c ON c.oid = att.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       CROSS JOIN LATERAL aclexplode(att.attacl) a JOIN managed m ON m.oid = a.grantee
 WHERE att.attacl IS NOT NULL AND att.attnum > 0 AND NOT att.attisdropped
UNION ALL
SELECT 'relation', NULL, n.nspname, c.relname, NULL, NULL
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = ANY($2::text[]) AND c.relkind IN ${RELATIONS}
UNION ALL
SELECT 'view', NULL, n.nspname, c.relname, NULL,
       CASE WHEN obj_description(c.oid, 'pg_class') = $4 || md5(pg_get_viewdef(c.oid)) THEN 'same' ELSE 'changed' END
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $3 AND c.relkind = 'v'
UNION ALL
SELECT DISTINCT 'membership', r.rolname, NULL, u.rolname, NULL, NULL
  FROM pg_auth_members am JOIN pg_roles r ON r.oid = am.roleid JOIN pg_roles u ON u.oid = am.member
 WHERE am.roleid IN (SELECT oid FROM managed) OR am.member IN (SELECT oid FROM managed)
UNION ALL
SELECT 'login', rolname, NULL, NULL, NULL, NULL FROM pg_roles WHERE rolname = ANY($5::text[])`;

interface Row {
  /** A membership row names the role in `role` and its member in `table_name`. */
  kind: "role" | "privilege" | "relation" | "view" | "membership" | "login";
  role: string | null;
  schema_name: string | null;
  table_name: string | null;
  column_name: string | null;
  privilege: string | null;
}

export async function readCatalog(client: pg.Client, roles: readonly string[], schemas: readonly string[], maskSchema: string, logins: readonly string[] = []): Promise<CatalogState> {
  const result = await client.query<Row>(CATALOG_SQL, [roles, schemas, maskSchema, VIEW_MARK, logins]);
  const memberships: Membership[] = [];
  const existing = new Set<string>();
  const found = new Set<string>();
  const privileges: Privilege[] = [];
  const tables = new Map<string, string[]>();
  const changedViews = new Set<string>();
  for (const row of result.rows) {
    if (row.kind === "role") found.add(row.role!);
    else if (row.kind === "membership") memberships.push({ role: row.role!, member: row.table_name! });
    else if (row.kind === "login") existing.add(row.role!);
    else if (row.kind === "relation") tables.set(row.schema_name!, [...(tables.get(row.schema_name!) ?? []), row.table_name!]);
    else if (row.kind === "view") {
      if (row.privilege === "changed") changedViews.add(`${row.schema_name}.${row.table_name}`);
    } else {
      const on = row.column_name !== null ? "column" : row.table_name !== null ? "table" : "schema";
      const p: Privilege = { role: row.role!, on, schema: row.schema_name!, privilege: row.privilege! };
      if (row.table_name !== null) p.table = row.table_name;
      if (row.column_name !== null) p.column = row.column_name;
      privileges.push(p);
    }
  }
  for (const list of tables.values()) list.sort();
  return { roles: found, privileges, tables, changedViews, memberships, logins: existing };
}

/** The statement that takes one privilege found by reconciliation away again. */
export function revokeOne(p: Privilege): string {
  const ident = pg.escapeIdentifier;
  // aclexplode names privileges with their SQL keywords (SELECT, USAGE, TRUNCATE…); anything else is refused.
  if (!/^[A-Z ]+$/.test(p.privilege)) throw new Error(`unexpected privilege name ${JSON.stringify(p.privilege)}`);
  if (p.on === "schema") return `REVOKE ${p.privilege} ON SCHEMA ${ident(p.schema)} FROM ${ident(p.role)}`;
  const table = `${ident(p.schema)}.${ident(p.table!)}`;
  if (p.on === "table") return `REVOKE ${p.privilege} ON ${table} FROM ${ident(p.role)}`;
  return `REVOKE ${p.privilege} (${ident(p.column!)}) ON ${table} FROM ${ident(p.role)}`;
}

/** The statement that gives a membership back, or takes one added by hand away. */
export function membershipStatement(m: Membership, give: boolean): string {
  const ident = pg.escapeIdentifier;
  return give ? `GRANT ${ident(m.role)} TO ${ident(m.member)}` : `REVOKE ${ident(m.role)} FROM ${ident(m.member)}`;
}
