import { sql } from "kysely";
import type { Executor } from "./index.js";

/**
 * Transaction control as plain statements on one connection. Group commit (src/events/) opens
 * its transactions this way rather than through Kysely's transaction builder, because on
 * PostgreSQL it sends `begin` together with its lock and `commit` together with its
 * notifications, one round trip each, which the builder cannot. Savepoints here take no name from
 * outside: `name` is always one of the caller's own identifiers.
 */
export const transactionControl = {
  async rollback(conn: Executor): Promise<void> {
    await sql.raw("rollback").execute(conn);
  },
  async savepoint(conn: Executor, name: string): Promise<void> {
    await sql.raw(`savepoint ${name}`).execute(conn);
  },
  async release(conn: Executor, name: string): Promise<void> {
    await sql.raw(`release savepoint ${name}`).execute(conn);
  },
  async rollbackTo(conn: Executor, name: string): Promise<void> {
    await sql.raw(`rollback to savepoint ${name}`).execute(conn);
  },
};
