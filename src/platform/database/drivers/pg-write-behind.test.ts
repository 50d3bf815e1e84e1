import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, testPool, type TestDatabase } from "../../../../test/helpers/databases.js";
import { perConnection } from "./per-connection.js";
import { withNamedStatements } from "./pg-statements.js";
import { withLiterals, withWriteBehind, WRITE_LATER } from "./pg-write-behind.js";

interface Tables {
  things: { id: string; n: number; note: string | null };
}

/**
 * A pool of one connection that records each text it sends: one per round trip. Like the pools it
 * stands in for, it hands out one object per connection.
 */
function recordingPool(url: string): { pool: PostgresPool; sent: string[] } {
  const inner = withNamedStatements(testPool(url, 1));
  const sent: string[] = [];
  const recorderOf = perConnection((client: PostgresPoolClient): PostgresPoolClient => ({
    query: ((text: unknown, values?: unknown[]) => {
      if (typeof text === "string") sent.push(text);
      return client.query(text as string, values ?? []);
    }) as never,
    release: () => client.release(),
  }));
  return {
    sent,
    pool: {
      connect: async () => recorderOf(await inner.connect()),
      end: () => inner.end(),
    },
  };
}

describe("writes sent with the next statement (postgres)", () => {
  let database: TestDatabase;
  let db: Kysely<Tables>;
  let behind: PostgresPool;
  let sent: string[];

  beforeAll(async () => {
    database = await createTestDatabase("postgres");
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query("create table things (id text primary key, n integer not null check (n >= 0), note text)");
    await admin.end();
    const recording = recordingPool(database.url);
    sent = recording.sent;
    behind = withWriteBehind(recording.pool);
    db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: behind }) });
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });
  beforeEach(async () => {
    await db.deleteFrom("things").execute();
    sent.length = 0;
  });

  const insert = (trx: Kysely<Tables>, id: string, n: number, note: string | null = null) =>
    trx.insertInto("things").values({ id, n, note }).modifyEnd(WRITE_LATER).execute();
  const update = (trx: Kysely<Tables>, id: string, n: number) => trx.updateTable("things").set({ n }).where("id", "=", id).modifyEnd(WRITE_LATER).execute();
  const read = async (trx: Kysely<Tables>, id: string) => (await trx.selectFrom("things").select("n").where("id", "=", id).executeTakeFirst())?.n;
  const stored = async () => (await db.selectFrom("things").selectAll().orderBy("id").execute()).map((r) => `${r.id}=${r.n}`);

  it("sends each write with the statement after it, and the last with the commit: reads see every write before them", async () => {
    await db.connection().execute(async (conn) => {
      await sql.raw("begin").execute(conn);
      await insert(conn, "a", 1);
      expect(await read(conn, "a")).toBe(1);
      await update(conn, "a", 2);
      await insert(conn, "b", 3);
      expect(await read(conn, "a")).toBe(2);
      await update(conn, "b", 4);
      await sql.raw("commit").execute(conn);
    });
    expect(await stored()).toEqual(["a=2", "b=4"]);
    // begin, two reads with the writes before them, and the commit with the last write: four
    // round trips where each statement on its own would have been eight.
    const transaction = sent.slice(0, 4);
    expect(transaction).toHaveLength(4);
    expect(transaction[0]).toBe("begin");
    expect(transaction[1]).toMatch(/^insert into "things" .* values \('a', '1', null\);\nselect "n" from "things" where "id" = 'a';$/);
    expect(transaction[2].split("\n")).toHaveLength(3);
    expect(transaction[3]).toMatch(/^update "things" set "n" = '4' where "id" = 'b';\ncommit;$/);
  });

  it("writes values exactly as parameters would: quotes, backslashes, a $1, unicode, null", async () => {
    const notes = ["it's", "back\\slash \\' and \\\\", "costs $1 or $2", 'a "quoted" name', "ünïcødé ✓ 𝄞", "", "--", "/* not a comment */", "E'x'"];
    await db.connection().execute(async (conn) => {
      await sql.raw("begin").execute(conn);
      for (const [i, note] of notes.entries()) await insert(conn, `n${i}`, i, note);
      await insert(conn, "none", 99, null);
      await sql.raw("commit").execute(conn);
    });
    const rows = await db.selectFrom("things").select(["id", "note"]).execute();
    const byId = new Map(rows.map((r) => [r.id, r.note]));
    notes.forEach((note, i) => expect(byId.get(`n${i}`)).toBe(note));
    expect(byId.get("none")).toBeNull();
  });

  it("hears a failed write with the commit it went with; nothing of the transaction stays and the connection is clean", async () => {
    await db.insertInto("things").values({ id: "kept", n: 1, note: null }).execute();
    await db.connection().execute(async (conn) => {
      await sql.raw("begin").execute(conn);
      await update(conn, "kept", 5);
      await insert(conn, "bad", -1); // breaks the check constraint
      await expect(sql.raw("commit").execute(conn)).rejects.toMatchObject({ code: "23514" });
      await sql.raw("rollback").execute(conn);
      // The same connection, next transaction: no write of the failed one is sent again.
      await sql.raw("begin").execute(conn);
      await insert(conn, "next", 2);
      await sql.raw("commit").execute(conn);
    });
    expect(await stored()).toEqual(["kept=1", "next=2"]);
  });

  it("drops with a rollback the writes it would undo, and keeps those made before a savepoint", async () => {
    await db.connection().execute(async (conn) => {
      await sql.raw("begin").execute(conn);
      await insert(conn, "before", 1);
      await sql.raw("savepoint change").execute(conn);
      await insert(conn, "inside", 2);
      await sql.raw("rollback to savepoint change").execute(conn);
      await sql.raw("release savepoint change").execute(conn);
      await sql.raw("commit").execute(conn);
      await sql.raw("begin").execute(conn);
      await insert(conn, "undone", 3);
      await sql.raw("rollback").execute(conn);
    });
    expect(await stored()).toEqual(["before=1"]);
    expect(sent.some((text) => text.includes("'undone'"))).toBe(false);
    expect(sent.some((text) => text.includes("'inside'"))).toBe(false);
  });

  it("runs a marked write at once outside a transaction, and one whose values it cannot write as literals", async () => {
    await insert(db, "alone", 1);
    // Sent by itself, with parameters, before anything else: reading it back alone would not show
    // that, since a kept write would travel with the read.
    expect(sent).toEqual([expect.stringMatching(/^insert into "things" .* values \(\$1, \$2, \$3\) \/\* write later \*\/$/)]);
    expect(await stored()).toEqual(["alone=1"]);
    await db.connection().execute(async (conn) => {
      await sql.raw("begin").execute(conn);
      await insert(conn, "first", 1);
      // A NUL cannot go into a text: the first write is sent ahead, and this one as a parameter,
      // which PostgreSQL refuses with its own error.
      await expect(insert(conn, "nul", 2, "a\0b")).rejects.toThrow(/0x00/);
      await sql.raw("rollback").execute(conn);
    });
    expect(sent.filter((text) => text.includes("'first'"))).toHaveLength(1);
    expect(await stored()).toEqual(["alone=1"]);
  });

  it("reads back every value written as a literal exactly as the same value sent as a parameter", async () => {
    // Seeded, so a failure can be replayed.
    let seed = 20261124;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pieces = ["'", "''", "\\", "\\'", "$1", "$$", "--", "/*", "*/", "E'", '"', ";", "\n", "\r", "\t", "\u0001", "\u007f", "é", "ß", "😀", "\ud800", "\u2028", " ", "a", "0", "commit", "select"];
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      for (let i = 0; i < 300; i++) {
        const values = [0, 1].map(() => Array.from({ length: Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]).join(""));
        const text = `select $1::text as a, $2::text as b, length($1) as n`;
        const literal = withLiterals(text, values);
        expect(literal, JSON.stringify(values)).toBeDefined();
        const [asParameters, asLiterals] = [await client.query(text, values), await client.query(literal!)];
        expect(asLiterals.rows, JSON.stringify(values)).toEqual(asParameters.rows);
      }
    } finally {
      await client.end();
    }
  });

  it("writes only primitive values as literals", () => {
    expect(withLiterals('select $1, $2, $3, $4 from "a$5""b"', ["x'y", 7, true, null])).toBe(`select 'x''y', '7', 'true', null from "a$5""b"`);
    // A backslash makes pg write an escape string literal (E'…'), with the backslash doubled.
    expect(withLiterals("select $1", ["back\\slash"])).toBe("select  E'back\\\\slash'");
    // Where a $n might not be a parameter, or a value could end up outside its quotes, nothing is rewritten.
    for (const text of ["select '$1'", 'select "a $1', "select 1 -- $1", "select /* $1 */ 1", "select $$ $1 $$", "select E'\\' || $1", "select $2"]) {
      expect(withLiterals(text, ["x"]), text).toBeUndefined();
    }
    expect(withLiterals("select $1", [new Date()])).toBeUndefined();
    expect(withLiterals("select $1", [[1, 2]])).toBeUndefined();
    expect(withLiterals("select $1", [{ a: 1 }])).toBeUndefined();
    expect(withLiterals("select $1", [Number.NaN])).toBeUndefined();
    expect(withLiterals("select $1", ["\0"])).toBeUndefined();
    // Escaping is linear but not cheap: long values stay parameters.
    expect(withLiterals("select $1, $2", ["x".repeat(8 * 1024), "y".repeat(8 * 1024)])).toBeDefined();
    expect(withLiterals("select $1, $2", ["x".repeat(8 * 1024), "y".repeat(8 * 1024 + 1)])).toBeUndefined();
  });

  it("sends a write with a long value on its own, with parameters, after the writes before it", async () => {
    const long = "é'\\".repeat(10_000);
    await db.connection().execute(async (conn) => {
      await sql.raw("begin").execute(conn);
      await insert(conn, "short", 1);
      await insert(conn, "long", 2, long);
      await sql.raw("commit").execute(conn);
    });
    expect(sent.slice(1, 4)).toEqual([
      expect.stringMatching(/^insert into "things" .* values \('short', '1', null\);$/),
      expect.stringMatching(/^insert into "things" .* values \(\$1, \$2, \$3\) \/\* write later \*\/$/),
      "commit",
    ]);
    expect((await db.selectFrom("things").select("note").where("id", "=", "long").executeTakeFirstOrThrow()).note).toBe(long);
  });

  it("hands out one wrapper per connection, and sends nothing a checkout released in a transaction left unsent", async () => {
    const first = await behind.connect();
    await first.query("begin", []);
    await first.query('insert into "things" ("id", "n") values ($1, $2) /* write later */', ["left-behind", 1]);
    first.release();
    const second = await behind.connect();
    try {
      // Kysely keeps one connection object of its own per object the pool hands it.
      expect(second).toBe(first);
      // The session is still in the transaction the first checkout opened; the write it kept is gone.
      await second.query("select 1", []);
    } finally {
      await second.query("rollback", []);
      second.release();
    }
    expect(sent.join("\n")).not.toContain("left-behind");
    expect(await stored()).toEqual([]);
  });
});
