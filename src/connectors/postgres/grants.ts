import pg from "pg";

/** What one access is granted: SELECT on one table, or on every table of a schema. */
export interface Grant {
  accessId: string;
  role: string;
  schema: string;
  /** Absent: every table of the schema. */
  table: string | null;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function target(grant: Pick<Grant, "schema" | "table">): string {
  return grant.table === null ? `ALL TABLES IN SCHEMA ${quoteIdent(grant.schema)}` : `${quoteIdent(grant.schema)}.${quoteIdent(grant.table)}`;
}

export function grantStatement(grant: Grant): string {
  return `GRANT SELECT ON ${target(grant)} TO ${quoteIdent(grant.role)}`;
}

export function revokeStatement(grant: Grant): string {
  return `REVOKE SELECT ON ${target(grant)} FROM ${quoteIdent(grant.role)}`;
}

/**
 * Grants and revokes in one target database. Each access's grant is recorded in a ledger table
 * in the same transaction as the GRANT itself, so the connector can revoke after the access is
 * deleted, replays change nothing, and two accesses that need the same privilege do not take it
 * from each other when one of them ends.
 */
export class GrantStore {
  private ready?: Promise<void>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly ledgerSchema: string,
  ) {}

  private get ledger(): string {
    return `${quoteIdent(this.ledgerSchema)}.access_grants`;
  }

  private ensureLedger(): Promise<void> {
    this.ready ??= (async () => {
      await this.pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.ledgerSchema)}`);
      await this.pool.query(
        `CREATE TABLE IF NOT EXISTS ${this.ledger} (access_id text PRIMARY KEY, role text NOT NULL, schema_name text NOT NULL, table_name text, granted_at timestamptz NOT NULL DEFAULT now())`,
      );
    })().catch((error) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async grant(grant: Grant): Promise<void> {
    await this.ensureLedger();
    await this.inTransaction(async (client) => {
      const exists = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [grant.role]);
      if (exists.rowCount === 0) await client.query(`CREATE ROLE ${quoteIdent(grant.role)} NOLOGIN`);
      await client.query(`GRANT USAGE ON SCHEMA ${quoteIdent(grant.schema)} TO ${quoteIdent(grant.role)}`);
      await client.query(grantStatement(grant));
      await client.query(
        `INSERT INTO ${this.ledger} (access_id, role, schema_name, table_name) VALUES ($1, $2, $3, $4)
         ON CONFLICT (access_id) DO UPDATE SET role = excluded.role, schema_name = excluded.schema_name, table_name = excluded.table_name`,
        [grant.accessId, grant.role, grant.schema, grant.table],
      );
    });
  }

  /** Revokes what the ledger says the access was granted; answers what was revoked, if anything. */
  async revoke(accessId: string): Promise<Grant | undefined> {
    await this.ensureLedger();
    return this.inTransaction(async (client) => {
      const found = await client.query<{ role: string; schema_name: string; table_name: string | null }>(
        `DELETE FROM ${this.ledger} WHERE access_id = $1 RETURNING role, schema_name, table_name`,
        [accessId],
      );
      const row = found.rows[0];
      if (!row) return undefined;
      const grant: Grant = { accessId, role: row.role, schema: row.schema_name, table: row.table_name };
      const roleExists = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [grant.role]);
      if (roleExists.rowCount === 0) return grant;
      await client.query(revokeStatement(grant));
      // Other accesses of the same role in the same schema keep what they were granted.
      const others = await client.query<{ access_id: string; table_name: string | null }>(
        `SELECT access_id, table_name FROM ${this.ledger} WHERE role = $1 AND schema_name = $2`,
        [grant.role, grant.schema],
      );
      for (const other of others.rows) await client.query(grantStatement({ ...grant, accessId: other.access_id, table: other.table_name }));
      if (others.rowCount === 0) await client.query(`REVOKE USAGE ON SCHEMA ${quoteIdent(grant.schema)} FROM ${quoteIdent(grant.role)}`);
      return grant;
    });
  }

  async has(accessId: string): Promise<boolean> {
    await this.ensureLedger();
    const result = await this.pool.query(`SELECT 1 FROM ${this.ledger} WHERE access_id = $1`, [accessId]);
    return (result.rowCount ?? 0) > 0;
  }

  private async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
}
