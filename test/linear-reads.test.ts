/**
 * Reads of a stored contract are linear in its size (docs/security.md, linear normalization): a
 * small Data Contract Specification document whose definitions use each other in layers, each
 * with a long description, answers its models, its ODCS conversion and its changes quickly and
 * small — every definition is described once and referred to, never expanded again per use.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { startTestServer, type ApiResponse, type TestServer } from "./helpers/server.js";

/** `layers` definitions, each using the next three times and carrying a long description. */
function layered(layers: number, version = "1.0.0", note = "") {
  const description = `A long description that every use of this definition would repeat. ${"x".repeat(380)}${note}`;
  const definitions: Record<string, unknown> = { [`d${layers}`]: { type: "string", description } };
  for (let i = layers - 1; i >= 0; i--) {
    const next = { $ref: `#/definitions/d${i + 1}` };
    definitions[`d${i}`] = { type: "object", description, fields: { a: next, b: next, c: next } };
  }
  return {
    dataContractSpecification: "1.2.1",
    id: "layered",
    info: { title: "Layered", version, owner: "sales" },
    models: { m: { type: "table", fields: { root: { $ref: "#/definitions/d0" }, again: { $ref: "#/definitions/d1", required: true } } } },
    definitions,
  };
}

async function timed(run: () => Promise<ApiResponse>): Promise<{ res: ApiResponse; ms: number }> {
  const started = performance.now();
  const res = await run();
  return { res, ms: performance.now() - started };
}

describe.each(DATABASES)("linear reads of stored contracts (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind);
    await t.api("PUT", "/api/teams/sales", { name: "Sales" });
  });
  afterAll(() => t?.close());

  it("answers the models, ODCS and changes of a 6 KB layered DCS contract in under a second and a megabyte", async () => {
    const doc = layered(9);
    const size = JSON.stringify(doc).length;
    expect(size).toBeLessThan(7 * 1024);
    expect((await t.api("PUT", "/api/datacontracts/layered", doc)).status).toBe(200);
    expect((await t.api("PUT", "/api/datacontracts/layered", layered(9, "1.1.0", " Changed."))).status).toBe(200);
    for (const path of ["/api/datacontracts/layered/models", "/api/datacontracts/layered?format=odcs", "/api/datacontracts/layered/changes"]) {
      const { res, ms } = await timed(() => t.api("GET", path));
      expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200);
      expect(res.text.length, path).toBeLessThan(1024 * 1024);
      expect(ms, path).toBeLessThan(1000);
    }
    const { res, ms } = await timed(() => t.api("POST", "/api/datacontracts/layered/changes", layered(9, "1.2.0", " Again.")));
    expect(res.status).toBe(200);
    expect(ms).toBeLessThan(1000);

    // d0, used once, is read in place; d1, used four times, is described once and referred to.
    const models = (await t.api("GET", "/api/datacontracts/layered/models")).body;
    const [root, again] = models.models[0].fields;
    expect(root).toMatchObject({ name: "root", type: "object", description: expect.stringContaining("A long description") });
    expect(root.ref).toBeUndefined();
    expect(root.fields.map((f: { ref: string }) => f.ref)).toEqual(["d1", "d1", "d1"]);
    expect(again).toMatchObject({ name: "again", type: "object", ref: "d1", required: true });
    expect(again.fields).toBeUndefined();
    const names = models.definitions.map((d: { name: string }) => d.name);
    expect(names).toContain("d1");
    expect(new Set(names).size).toBe(names.length);
    const d1 = models.definitions.find((d: { name: string }) => d.name === "d1");
    expect(d1.fields.map((f: { name: string }) => f.name)).toEqual(["a", "b", "c"]);
  });

  it("still reads a definition used once in place, with the use site's members over the definition's", async () => {
    const doc = {
      dataContractSpecification: "1.2.1",
      id: "inline",
      info: { title: "Inline", version: "1.0.0", owner: "sales" },
      models: { m: { fields: { id: { $ref: "#/definitions/id", primaryKey: true }, other: { $ref: "#/definitions/id", description: "Other." } } } },
      definitions: { id: { type: "string", description: "An id.", minLength: 36 } },
    };
    expect((await t.api("PUT", "/api/datacontracts/inline", doc)).status).toBe(200);
    const fields = (await t.api("GET", "/api/datacontracts/inline/models")).body.models[0].fields;
    expect(fields[0]).toEqual({ name: "id", type: "string", physicalType: "string", required: false, description: "An id.", primaryKey: true, minLength: 36 });
    // A small simple definition is described again rather than referred to.
    expect(fields[1]).toEqual({ name: "other", type: "string", physicalType: "string", required: false, description: "Other.", minLength: 36 });
  });
});
