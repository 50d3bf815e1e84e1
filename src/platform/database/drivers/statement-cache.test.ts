import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache.js";

describe("the SQLite statement cache", () => {
  let connection: SQLite.Database;
  afterEach(() => connection?.open && connection.close());

  function open(capacity?: number) {
    connection = new SQLite(":memory:");
    connection.exec("create table t (id integer primary key, name text)");
    return withStatementCache(connection, capacity);
  }

  it("hands out the same statement for the same SQL, and a new one for other SQL", () => {
    const cached = open();
    const a = cached.prepare("select * from t where id = ?");
    expect(cached.prepare("select * from t where id = ?")).toBe(a);
    expect(cached.prepare("select * from t where name = ?")).not.toBe(a);
  });

  it("never hands out a statement that is still being iterated", () => {
    const cached = open();
    connection.exec("insert into t (name) values ('a'), ('b')");
    const first = cached.prepare("select * from t");
    const rows = first.iterate([]);
    rows.next();
    const second = cached.prepare("select * from t");
    expect(second).not.toBe(first);
    expect(second.all([])).toHaveLength(2);
    rows.return?.();
    expect(cached.prepare("select * from t")).toBe(first);
  });

  it("keeps at most its capacity, forgetting the least recently used", () => {
    const cached = open(2);
    const a = cached.prepare("select 1");
    const b = cached.prepare("select 2");
    expect(cached.prepare("select 1")).toBe(a); // now b is the least recently used
    cached.prepare("select 3");
    expect(cached.prepare("select 1")).toBe(a);
    expect(cached.prepare("select 2")).not.toBe(b);
  });

  it("serves Kysely: writes, reads and transactions see each other, also after a schema change", async () => {
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: open() }) });
    for (let i = 0; i < 3; i++) await db.insertInto("t").values({ name: `n${i}` }).execute();
    await db.transaction().execute(async (trx) => {
      await trx.updateTable("t").set({ name: "changed" }).where("id", "=", 1).execute();
      expect((await trx.selectFrom("t").select("name").where("id", "=", 1).executeTakeFirst())?.name).toBe("changed");
    });
    expect(await db.selectFrom("t").selectAll().where("id", "=", 2).executeTakeFirst()).toEqual({ id: 2, name: "n1" });
    await sql`alter table t add column extra text`.execute(db);
    // The kept statement `select * from t ...` was prepared before the new column existed.
    const row = await db.selectFrom("t").selectAll().where("id", "=", 2).executeTakeFirst();
    expect(row).toEqual({ id: 2, name: "n1", extra: null });
    await db.destroy();
  });
});
