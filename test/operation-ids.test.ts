import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATION_IDS } from "../src/platform/http/operation-ids.js";
import { request, startTestServer, type TestServer } from "./helpers/server.js";

describe("operationIds", () => {
  let t: TestServer;
  let operations: Array<{ key: string; operationId?: string }>;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
    const spec = (await request(t.url, "GET", "/api/openapi.json")).body;
    operations = Object.entries<Record<string, { operationId?: string }>>(spec.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, operationId: op.operationId })),
    );
  });
  afterAll(() => t?.close());

  it("gives every operation one, unique, in the table", () => {
    expect(operations.filter((o) => !o.operationId).map((o) => o.key)).toEqual([]);
    const ids = operations.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    // The table names no route that does not exist.
    expect(Object.keys(OPERATION_IDS).sort()).toEqual(operations.map((o) => o.key).sort());
  });
});
