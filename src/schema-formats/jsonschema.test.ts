import { describe, expect, it } from "vitest";
import { jsonschemaParser } from "./jsonschema.js";

describe("jsonschema", () => {
  it("accepts the same $id in repeated calls (no schema accumulates across calls)", () => {
    const schema = { $id: "https://example.com/a.json", type: "object", properties: { a: { $id: "https://example.com/inner.json", type: "string" } } };
    for (let i = 0; i < 3; i++) expect(jsonschemaParser.parse(JSON.stringify(schema), "s").ok).toBe(true);
    const changed = { ...schema, properties: { a: { $id: "https://example.com/inner.json", type: "integer" } } };
    expect(jsonschemaParser.parse(changed, "s").ok).toBe(true);
  });

  it("accepts draft-07 with or without the trailing #", () => {
    for (const $schema of ["http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"]) {
      expect(jsonschemaParser.parse({ $schema, type: "object", properties: { a: {} } }, "s").ok).toBe(true);
    }
  });

  it("names a cycle of references that never reaches a schema, quickly and without exhausting the stack", () => {
    const started = performance.now();
    const mutual = jsonschemaParser.parse(
      { type: "object", properties: { a: { $ref: "#/definitions/A" } }, definitions: { A: { $ref: "#/definitions/B" }, B: { $ref: "#/definitions/A" } } },
      "specification",
    );
    expect(mutual).toEqual({
      ok: false,
      violations: [{ field: "specification.definitions.A.$ref", message: "reference cycle with no schema: #/definitions/A → #/definitions/B → #/definitions/A" }],
    });
    const self = jsonschemaParser.parse(JSON.stringify({ type: "object", properties: { a: { $ref: "#/properties/a" } } }), "s");
    expect(self).toMatchObject({ ok: false, violations: [{ field: "s.properties.a.$ref", message: expect.stringContaining("reference cycle"), line: 1, column: 44 }] });
    expect(performance.now() - started).toBeLessThan(400);
    // Recursion through a schema (a tree of nodes) is no cycle.
    const tree = { type: "object", properties: { root: { $ref: "#/definitions/Node" } }, definitions: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/definitions/Node" } } } } } };
    expect(jsonschemaParser.parse(tree, "s").ok).toBe(true);
  });

  it("hands Avro records to the Avro parser", () => {
    const result = jsonschemaParser.parse([{ type: "record", name: "A", fields: [{ name: "x", type: "int" }] }], "s");
    expect(result).toMatchObject({ ok: true, detectedType: "avro", models: [{ name: "A", kind: "record" }] });
    const broken = jsonschemaParser.parse({ type: "record", name: "A", fields: [{ name: "x", type: "nope" }] }, "s");
    expect(broken).toMatchObject({ ok: false, violations: [{ field: "s.fields[0].type" }] });
  });

  it("maps nullable types and required lists", () => {
    const result = jsonschemaParser.parse({
      type: "object", required: ["a", "b"],
      properties: { a: { type: ["string", "null"] }, b: { type: "string", format: "date-time" }, c: { type: "integer" } },
    }, "s");
    if (!result.ok) throw new Error("expected ok");
    expect(result.models[0].fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ["a", "string", false], ["b", "timestamp", true], ["c", "integer", false],
    ]);
  });

  it("reads 2020-12: $defs, prefixItems, $anchor, dependentSchemas, unevaluatedProperties", () => {
    const result = jsonschemaParser.parse(JSON.stringify({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://example.com/order.schema.json",
      type: "object",
      required: ["id"],
      properties: {
        id: { $ref: "#/$defs/id" },
        customer: { $ref: "#customer" },
        point: { type: "array", prefixItems: [{ type: "number" }], items: false },
      },
      dependentSchemas: { customer: { required: ["id"] } },
      unevaluatedProperties: false,
      $defs: {
        id: { type: "string", format: "uuid" },
        customer: { $anchor: "customer", type: "object", properties: { name: { type: "string" } } },
      },
    }), "s");
    if (!result.ok) throw new Error(JSON.stringify(result.violations));
    expect(result.models[0].name).toBe("order");
    expect(result.models[0].fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ["id", "string", true], ["customer", "object", false], ["point", "array", false],
    ]);
    expect(result.models[0].fields[1].fields?.map((f) => f.name)).toEqual(["name"]);
    expect(result.models[0].fields[2].items).toMatchObject({ type: "number" });
  });

  it("reads 2019-09 with $recursiveRef", () => {
    const result = jsonschemaParser.parse({
      $schema: "https://json-schema.org/draft/2019-09/schema",
      title: "Tree",
      $recursiveAnchor: true,
      type: "object",
      properties: { label: { type: "string" }, children: { type: "array", items: { $recursiveRef: "#" } } },
    }, "s");
    if (!result.ok) throw new Error(JSON.stringify(result.violations));
    expect(result.models[0].fields[1].items).toMatchObject({ type: "object", ref: "Tree#" });
  });

  it("meta-validates against the draft $schema names", () => {
    const base = { type: "object", properties: { a: { type: "array", prefixItems: { type: "string" } } } };
    // prefixItems means nothing to draft-07, and must be a list in 2020-12.
    expect(jsonschemaParser.parse(base, "s").ok).toBe(true);
    expect(jsonschemaParser.parse({ $schema: "https://json-schema.org/draft/2020-12/schema", ...base }, "s")).toMatchObject({
      ok: false, violations: [{ field: "s.properties.a.prefixItems" }],
    });
    expect(jsonschemaParser.parse({ $schema: "http://json-schema.org/draft-04/schema#", ...base }, "s")).toMatchObject({
      ok: false, violations: [{ field: "s.$schema", message: expect.stringContaining("2020-12") }],
    });
  });
});
