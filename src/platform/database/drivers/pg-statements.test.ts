import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, testPool, type TestDatabase } from "../../../../test/helpers/databases.js";
import { withNamedStatements } from "./pg-statements.js";

interface Tables {
  things: { id: string; n: number };
  items: { org: string; kind: string; id: string; other: string | null };
}

describe("statements prepared once per connection (postgres)", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Kysely<Tables>;
  // One connection, so every query below runs in the same session and its prepared statements are visible.
  const open = (capacity?: number) => {
    pool = testPool(database.url, 1);
    db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool, capacity) }) });
  };
  const prepared = async () =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(db)).rows.filter(
      (row) => !row.statement.includes("pg_prepared_statements"),
    );

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query("create table things (id text primary key, n integer not null)");
    // Shaped like Steward's resources: a unique key, and another index on a prefix of it.
    await admin.query("create table items (org text not null, kind text not null, id text not null, other text, unique (org, kind, id))");
    await admin.query("create index items_by_other on items (org, kind, other)");
    await admin.end();
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it("hands out one wrapper per connection, configured once", async () => {
    const pool = testPool(database.url, 1);
    const named = withNamedStatements(pool);
    const first = await named.connect();
    first.release();
    const second = await named.connect();
    try {
      // Kysely keeps one connection object of its own per object the pool hands it.
      expect(second).toBe(first);
      const { rows } = (await second.query("show plan_cache_mode", [])) as unknown as { rows: Array<{ plan_cache_mode: string }> };
      expect(rows[0].plan_cache_mode).toBe("force_custom_plan");
    } finally {
      second.release();
      await pool.end();
    }
  });

  it("prepares a repeated statement once and answers each run with its own parameters", async () => {
    open();
    for (let n = 0; n < 5; n++) await db.insertInto("things").values({ id: `t${n}`, n }).execute();
    for (let n = 0; n < 5; n++) {
      const row = await db.selectFrom("things").select("n").where("id", "=", `t${n}`).executeTakeFirstOrThrow();
      expect(row.n).toBe(n);
    }
    const statements = await prepared();
    expect(statements.map((s) => s.statement).sort()).toEqual([
      'insert into "things" ("id", "n") values ($1, $2)',
      'select "n" from "things" where "id" = $1',
    ]);
    await db.destroy();
  });

  it("keeps transactions, savepoints and a failing statement working, without naming transaction control", async () => {
    open();
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("things").values({ id: "inside", n: 1 }).execute();
    });
    const trx = await db.startTransaction().execute();
    const point = await trx.savepoint("change").execute();
    // A duplicate id fails in the savepoint; the transaction goes on, and the same named statement runs again after.
    await expect(point.insertInto("things").values({ id: "inside", n: 2 }).execute()).rejects.toMatchObject({ code: "23505" });
    await point.rollbackToSavepoint("change").execute();
    await trx.insertInto("things").values({ id: "after", n: 3 }).execute();
    await trx.commit().execute();
    const rows = await db.selectFrom("things").select(["id", "n"]).where("id", "in", ["inside", "after"]).orderBy("id").execute();
    expect(rows).toEqual([
      { id: "after", n: 3 },
      { id: "inside", n: 1 },
    ]);
    expect((await prepared()).every((s) => /^(select|insert)/.test(s.statement))).toBe(true);
    await db.destroy();
  });

  it("plans every run with its own values, never settling on a generic plan made while the table was empty", async () => {
    open();
    const lookup = (id: string) => db.selectFrom("items").select("id").where("org", "=", "o").where("kind", "=", "asset").where("id", "=", id).forUpdate().execute();
    // After five runs PostgreSQL would switch to one generic plan, chosen here on an empty table
    // where either index looks as good, and keep it while the table grows.
    for (let i = 0; i < 8; i++) await lookup(`missing-${i}`);
    await sql`insert into items (org, kind, id) select 'o', 'asset', 'a' || g from generate_series(1, 20000) g`.execute(db);
    for (let i = 0; i < 4; i++) expect(await lookup(`a${i + 1}`)).toEqual([{ id: `a${i + 1}` }]);
    const { rows } = await sql<{ generic_plans: number; custom_plans: number }>`
      select generic_plans::int, custom_plans::int from pg_prepared_statements where statement like ${'select "id" from "items"%'}`.execute(db);
    expect(rows).toEqual([{ generic_plans: 0, custom_plans: 12 }]);
    await db.destroy();
  });

  it("names at most `capacity` statements and runs the rest unnamed, still correctly", async () => {
    open(2);
    for (let length = 1; length <= 5; length++) {
      const ids = Array.from({ length }, (_, i) => `t${i}`);
      const rows = await db.selectFrom("things").select("id").where("id", "in", ids).execute();
      expect(rows).toHaveLength(length);
    }
    expect(await prepared()).toHaveLength(2);
    await db.destroy();
  });

  it("runs a text of several statements unnamed, as one simple query", async () => {
    open();
    // A prepared statement holds one command only: named, this would fail.
    await sql.raw("select 1; select 2").execute(db);
    await sql.raw("begin; insert into things values ('several', 4)").execute(db);
    await sql.raw("select 1; commit").execute(db);
    expect(await db.selectFrom("things").select("n").where("id", "=", "several").execute()).toEqual([{ n: 4 }]);
    expect((await prepared()).some((s) => s.statement.includes(";"))).toBe(false);
    await db.destroy();
  });
});
