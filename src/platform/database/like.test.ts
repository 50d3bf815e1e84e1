import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, DATABASES, type TestDatabase } from "../../../test/helpers/databases.js";
import { openDatabase, type Database } from "./index.js";
import { containsText, escapeLike } from "./like.js";

describe.each(DATABASES)("LIKE with user text (%s)", (kind) => {
  let testDb: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    database = openDatabase(testDb.url);
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  const contains = async (value: string, text: string) => {
    const { rows } = await sql<{ m: number }>`select case when ${containsText(sql.val(value), text)} then 1 else 0 end as m`.execute(database.db);
    return Number(rows[0].m) === 1;
  };

  it("matches `_`, `%` and `\\` only as themselves", async () => {
    expect(await contains("o_brien%1@example.com", "o_brien%1@example.com")).toBe(true);
    expect(await contains("xo_brien%1@example.com", "o_brien%1")).toBe(true);
    expect(await contains("oxbrien%1@example.com", "o_brien")).toBe(false);
    expect(await contains("50 off", "50%")).toBe(false);
    expect(await contains("50% off", "50%")).toBe(true);
    expect(await contains("a\\b", "a\\b")).toBe(true);
    expect(await contains("ab", "a\\b")).toBe(false);
  });

  it("escapes every wildcard", () => {
    expect(escapeLike("a_b%c\\d")).toBe("a\\_b\\%c\\\\d");
  });
});
