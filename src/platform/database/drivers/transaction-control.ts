import { sql } from "kysely";
import type { Executor } from "../index.js";

/**
 * Transaction control as plain statements on one connection. Group commit (src/events/) opens
 * its transactions this way rather than through Kysely's transaction builder, because on
 * PostgreSQL it sends `begin` together with its lock and `commit` together with its
 * notifications, one round trip each, which the builder cannot (eventRepository.begin, .commit).
 * Savepoints here take no name from outside: `name` is always one of the caller's own identifiers.
 */
export const transactionControl = {
  /**
   * Opens a transaction, with `then` in the same round trip when given: one text without
   * parameters, which PostgreSQL runs statement after statement, so `then` carries its values as
   * literals its caller escaped.
   */
  async begin(conn: Executor, then?: string): Promise<void> {
    await sql.raw(then === undefined ? "begin" : `begin; ${then}`).execute(conn);
  },
  /** Commits, after `first` in the same round trip when given (as for `begin`). */
  async commit(conn: Executor, first?: string): Promise<void> {
    await sql.raw(first === undefined ? "commit" : `${first}; commit`).execute(conn);
  },
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
