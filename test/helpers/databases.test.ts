import { describe, expect, it } from "vitest";
import { createTestDatabase, testPool } from "./databases.js";

describe("a test's own pool (postgres)", () => {
  it("takes its idle connections being ended by the database's drop without an uncaught error", async () => {
    const database = await createTestDatabase("postgres");
    const pool = testPool(database.url, 2);
    try {
      // Two connections left idle in the pool, as a test's pool holds them when its database goes.
      const [a, b] = [await pool.connect(), await pool.connect()];
      await Promise.all([a.query("select 1"), b.query("select 1")]);
      a.release();
      b.release();
      expect(pool.idleCount).toBe(2);
      await database.drop();
      // The pool drops each connection the server ended; an unheard error would have thrown first.
      await expect.poll(() => pool.totalCount, { timeout: 5_000 }).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
