import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, DATABASES, type DatabaseKind, type TestDatabase } from "../../../../test/helpers/databases.js";
import { openDatabase, type Database, type DB } from "../index.js";
import { onOneConnection, type OnOneConnection } from "./one-connection.js";

/** A fresh database with an empty table `one_connection`, and the runner group commit would use on it. */
function withTable(kind: DatabaseKind) {
  const state = { database: undefined as unknown as Database, onOne: undefined as unknown as OnOneConnection };
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    state.database = openDatabase(testDb.url);
    state.onOne = onOneConnection(state.database);
    await sql`create table one_connection (n integer)`.execute(state.database.db);
  });
  afterAll(async () => {
    await state.database?.close();
    await testDb?.drop();
  });
  return state;
}

const count = async (ex: Kysely<DB>) => Number((await sql<{ c: number }>`select count(*) as c from one_connection`.execute(ex)).rows[0].c);

describe.each(DATABASES)("work on one connection (%s)", (kind) => {
  const t = withTable(kind);

  it("runs a transaction begun by hand on the connection it holds, and commits it there", async () => {
    const seenInside = await t.onOne(async (conn) => {
      await sql`begin`.execute(conn);
      await sql`insert into one_connection (n) values (1)`.execute(conn);
      const inside = await count(conn);
      await sql`commit`.execute(conn);
      return inside;
    });
    expect(seenInside).toBe(1);
    expect(await count(t.database.db)).toBe(1);
  });

  it("keeps the instance it binds to a connection, and binds it again when the connection comes back", async () => {
    const seen = new Set<Kysely<DB>>();
    // One after another: the pool hands out the connection it was just given back.
    for (let i = 0; i < 5; i++) await t.onOne(async (conn) => void seen.add(conn));
    expect(seen.size).toBe(1);
  });
});

describe("the instance kept for SQLite's one connection", () => {
  const t = withTable("sqlite");

  it("refuses a transaction builder, and changes nothing", async () => {
    const tried = t.onOne((conn) => conn.transaction().execute((trx) => sql`insert into one_connection (n) values (2)`.execute(trx)));
    await expect(tried).rejects.toThrow(/cannot open transactions/);
    expect(await count(t.database.db)).toBe(0);
  });

  it("holds the connection: other queries wait until the work is done", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const work = t.onOne(async (conn) => {
      await sql`begin`.execute(conn);
      await sql`insert into one_connection (n) values (3)`.execute(conn);
      await held;
      await sql`commit`.execute(conn);
    });
    let answered: number | undefined;
    const other = count(t.database.db).then((n) => (answered = n));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBeUndefined();
    release();
    await work;
    await other;
    // It ran after the commit, so it saw the row.
    expect(answered).toBe(1);
  });
});
