import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceOperations } from "./helpers/reference.js";
import { request, startTestServer, type TestServer } from "./helpers/server.js";

/** Paths compared without their parameter names: `{organizationApiKeyId}` and `{id}` are one place. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, "{}");

describe("operationIds against the reference description", () => {
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

  it("carries the reference product's operationId on every operation both have", () => {
    const reference = new Map(referenceOperations().map((o) => [`${o.method} ${shape(o.path)}`, o.operationId]));
    const shared = operations.filter((o) => reference.has(shape(o.key)));
    expect(shared.length).toBeGreaterThan(40);
    for (const o of shared) expect(o.operationId, o.key).toBe(reference.get(shape(o.key)));
    // Connectors report provisioning through six operations of their own: each must be one here too,
    // not one route with a parameter that a generated client would name differently.
    const offered = new Set(operations.map((o) => shape(o.key)));
    const accessOperations = [...reference.keys()].filter((key) => key.includes(" /api/access"));
    expect(accessOperations.filter((key) => !offered.has(key))).toEqual([]);
  });
});
