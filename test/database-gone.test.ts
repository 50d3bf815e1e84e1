/**
 * A database that goes away under a running server (dropped, here) is not a fault of the request:
 * every /api request answers 503 with Retry-After, as /health/ready does, never a 500. SQLite's
 * open file cannot go away under the process; PostgreSQL's database can.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./helpers/server.js";

describe("requests while the database is gone (postgres)", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("postgres");
    expect((await t.api("PUT", "/api/teams/t1", { name: "T1" })).status).toBe(200);
    await t.database.drop();
  });
  afterAll(() => t?.close());

  it.each([
    ["a known key", () => t.key],
    ["an unknown key", () => "stw_unknown-key-unknown-key-unknown-key-unkn"],
  ])("answers 503 with Retry-After for %s", async (_, key) => {
    for (const path of ["/api/teams", "/api/teams/t1", "/api/api-keys"]) {
      const res = await t.api("GET", path, undefined, { key: key() });
      expect(res.status, `${path}: ${res.text}`).toBe(503);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(res.body).toMatchObject({ status: 503, detail: "The database is not reachable." });
    }
  });

  it("answers /health/ready the same way", async () => {
    const res = await t.api("GET", "/health/ready");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
  });
});
