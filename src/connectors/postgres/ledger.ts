import pg from "pg";
import type { TableGrant, Target } from "./trust.js";

/**
 * The connector's ledger: which access it granted what, and where (the configured server's name,
 * schema, table, role). It lives in one database the operator chose, so a port that moves, or an
 * access that is deleted, still finds its grant; and the connector never revokes anything it
 * did not record here.
 */
export class Ledger {
  private ready = false;

  constructor(private readonly schema: string) {}

  private get table(): string {
    return `${pg.escapeIdentifier(this.schema)}.grants`;
  }

  async ensure(client: pg.Client): Promise<void> {
    if (this.ready) return;
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(this.schema)}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${this.table} (
         access_id text PRIMARY KEY,
         server text NOT NULL,
         role text NOT NULL,
         schema_name text NOT NULL,
         table_name text,
         granted_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    // The tables and columns a privileges plan narrowed the grant to (JSON); null: the object whole.
    await client.query(`ALTER TABLE ${this.table} ADD COLUMN IF NOT EXISTS privileges text`);
    this.ready = true;
  }

  async find(client: pg.Client, accessId: string): Promise<Target | undefined> {
    await this.ensure(client);
    const result = await client.query<Row>(`SELECT server, role, schema_name, table_name, privileges FROM ${this.table} WHERE access_id = $1`, [accessId]);
    return result.rows[0] && toTarget(result.rows[0]);
  }

  /** Written before the GRANT runs, so a crash in between leaves a record to revoke, never an unrecorded privilege. */
  async record(client: pg.Client, accessId: string, target: Target): Promise<void> {
    await this.ensure(client);
    await client.query(
      `INSERT INTO ${this.table} (access_id, server, role, schema_name, table_name, privileges) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (access_id) DO UPDATE SET server = excluded.server, role = excluded.role, schema_name = excluded.schema_name,
         table_name = excluded.table_name, privileges = excluded.privileges, granted_at = now()`,
      [accessId, target.server, target.role, target.schema, target.table, target.grants ? JSON.stringify(target.grants) : null],
    );
  }

  async remove(client: pg.Client, accessId: string): Promise<void> {
    await this.ensure(client);
    await client.query(`DELETE FROM ${this.table} WHERE access_id = $1`, [accessId]);
  }

  /** Every entry, for reconciliation: one statement, whatever the number of accesses. */
  async all(client: pg.Client): Promise<Array<{ accessId: string; target: Target }>> {
    await this.ensure(client);
    const result = await client.query<Row & { access_id: string }>(`SELECT access_id, server, role, schema_name, table_name, privileges FROM ${this.table} ORDER BY access_id`);
    return result.rows.map((row) => ({ accessId: row.access_id, target: toTarget(row) }));
  }

  /** What other accesses hold for the same role in the same schema of the same server. */
  async others(client: pg.Client, accessId: string, target: Target): Promise<Target[]> {
    await this.ensure(client);
    const result = await client.query<Row>(
      `SELECT server, role, schema_name, table_name, privileges FROM ${this.table} WHERE server = $1 AND role = $2 AND schema_name = $3 AND access_id <> $4`,
      [target.server, target.role, target.schema, accessId],
    );
    return result.rows.map(toTarget);
  }
}

interface Row {
  server: string;
  role: string;
  schema_name: string;
  table_name: string | null;
  privileges: string | null;
}

function toTarget(row: Row): Target {
  const target: Target = { server: row.server, role: row.role, schema: row.schema_name, table: row.table_name };
  if (row.privileges !== null) target.grants = JSON.parse(row.privileges) as TableGrant[];
  return target;
}
