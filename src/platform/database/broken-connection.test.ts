/**
 * A PostgreSQL session that ends under a request (a database restart, an administrator's
 * pg_terminate_backend) fails that request's work and nothing more: no uncaught error ends the
 * process, and the next query gets a connection of its own. SQLite has no connection to lose.
 */
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/helpers/databases.js";
import { openDatabase, type Database } from "./index.js";

describe("a connection that breaks while checked out (postgres)", () => {
  let target: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    target = await createTestDatabase("postgres");
    database = openDatabase(target.url);
  });
  afterAll(async () => {
    await database?.close();
    await target?.drop();
  });

  it("fails the work on it, without an uncaught error, and hands out a new one", async () => {
    const admin = new pg.Client({ connectionString: target.url });
    await admin.connect();
    try {
      const work = database.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        // The database ends the session while the transaction holds it.
        await admin.query("select pg_terminate_backend($1)", [rows[0]!.pid]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await sql`select 1`.execute(trx);
      });
      await expect(work).rejects.toThrow();
      expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
    }
  });
});

describe("a connection that cannot even be opened (postgres)", () => {
  it("fails the query, and the database still closes", async () => {
    // pg's socket throws at once for a port out of range, before any connection attempt.
    const database = openDatabase("postgres://steward@127.0.0.1/steward?port=70000");
    await expect(sql`select 1`.execute(database.db)).rejects.toThrow(/port/i);
    const closed = await Promise.race([database.close().then(() => "closed"), new Promise((r) => setTimeout(() => r("still open"), 5000))]);
    expect(closed).toBe("closed");
  });
});
