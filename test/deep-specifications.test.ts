/**
 * Specifications nested far deeper than any schema needs, against a real `steward serve`
 * process: the process must refuse them and go on answering. Arrays and objects nested a few
 * hundred levels once ran a recursive parser to the end of the stack, where V8 died of a fatal
 * error no handler can catch, and the whole server with it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapKey, Processes } from "./feed/helpers.js";
import type { ServeProcess } from "./helpers/cli.js";
import { createTestDatabase, DATABASES, type TestDatabase } from "./helpers/databases.js";
import { request } from "./helpers/server.js";

/** A BigQuery field list (also a JSON Schema and Avro specification for their parsers) nested 2 × `depth` levels. */
const deep = (depth: number) => `${'[{"name":"a","type":"RECORD","fields":'.repeat(depth)}{"name":"x","type":"STRING"}${"}]".repeat(depth)}`;

describe.each(DATABASES)("deeply nested specifications (%s)", (kind) => {
  const processes = new Processes();
  let database: TestDatabase;
  let server: ServeProcess;
  let key: string;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    server = await processes.start({ DATABASE_URL: database.url });
    key = bootstrapKey(server);
    await request(server.url, "PUT", "/api/teams/team-a", { name: "A" }, { key });
  }, 60_000);
  afterAll(async () => {
    await processes.stopAll();
    await database?.drop();
  });

  const live = async () => (await request(server.url, "GET", "/health/live")).status;
  const limit = /nested more than 128 levels deep, the limit for a specification/;

  it.each(["bigquery", "jsonschema", "avro", "dbt"])("refuses a %s specification nested 600 levels with 422 naming the limit, and answers afterwards", async (type) => {
    const res = await request(server.url, "POST", "/api/schemas/validate", { type, specification: deep(300) }, { key });
    expect(res.status, res.text).toBe(422);
    expect(res.body.violations).toEqual([{ field: "specification", message: expect.stringMatching(limit) }]);
    expect(await live()).toBe(200);
  });

  it("refuses such a specification inside a contract, parsed in place and on a worker thread; nothing stored, and answers afterwards", async () => {
    // Padded past the size parsed in place, the second goes to a worker thread.
    for (const specification of [deep(300), `${deep(300)}${" ".repeat(70 * 1024)}`]) {
      const contract = { dataContractSpecification: "0.9.3", id: "deep1", info: { title: "T", version: "1", owner: "team-a" }, schema: { type: "bigquery", specification } };
      const res = await request(server.url, "PUT", "/api/datacontracts/deep1", contract, { key });
      expect(res.status, res.text).toBe(422);
      expect(res.body.violations).toEqual([{ field: "schema.specification", message: expect.stringMatching(limit) }]);
      expect(await live()).toBe(200);
    }
    expect((await request(server.url, "GET", "/api/datacontracts/deep1", undefined, { key })).status).toBe(404);
  });
});
