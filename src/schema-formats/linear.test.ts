/**
 * Normalization is linear in the specification (docs/product.md §4): small documents that name a type
 * once and use it many times must not expand into huge results. Sizes are asserted, not times.
 */
import { describe, expect, it } from "vitest";
import { parseSchema } from "./index.js";
import type { NormalizedField, ParseResult } from "./index.js";

function ok(result: ParseResult) {
  if (!result.ok) throw new Error(`expected a valid schema, got ${JSON.stringify(result.violations)}`);
  return result;
}

/** Each level names the next type twice: a naive expansion has 2^levels leaves. */
function avroBomb(levels: number): string {
  let inner: unknown = { type: "record", name: `T${levels}`, fields: [{ name: "v", type: "string" }] };
  for (let i = levels - 1; i >= 0; i--) {
    inner = { type: "record", name: `T${i}`, fields: [{ name: "a", type: inner }, { name: "b", type: `T${i + 1}` }] };
  }
  return JSON.stringify(inner);
}

function jsonSchemaBomb(levels: number, keyword: "definitions" | "$defs"): string {
  const defs: Record<string, unknown> = { [`t${levels}`]: { type: "string" } };
  for (let i = 0; i < levels; i++) {
    const next = { $ref: `#/${keyword}/t${i + 1}` };
    defs[`t${i}`] = { type: "object", properties: { a: next, b: next, c: next } };
  }
  return JSON.stringify({ type: "object", properties: { root: { $ref: `#/${keyword}/t0` } }, [keyword]: defs });
}

function resolve(field: NormalizedField, definitions: NormalizedField[] | undefined): NormalizedField {
  return field.ref === undefined ? field : definitions!.find((d) => d.name === field.ref)!;
}

describe("linear normalization", () => {
  it("describes each Avro named type once: the 1.9 KB bomb gives a small result", () => {
    const spec = avroBomb(30);
    expect(spec.length).toBeLessThan(3000);
    const result = ok(parseSchema({ type: "avro", specification: spec }, "schema"));
    expect(JSON.stringify(result).length).toBeLessThan(10 * spec.length);
    // Both uses of a named type used twice refer to its one definition, which holds its fields.
    const [a, b] = result.models[0].fields;
    expect(a).toMatchObject({ name: "a", type: "object", physicalType: "T1", ref: "T1" });
    expect(b).toMatchObject({ name: "b", type: "object", physicalType: "T1", ref: "T1" });
    expect(b.fields).toBeUndefined();
    expect(resolve(b, result.definitions)).toMatchObject({ name: "T1", physicalType: "T1" });
    expect(resolve(b, result.definitions).fields?.map((f) => f.name)).toEqual(["a", "b"]);
  });

  it("refers to recursive Avro records instead of expanding them", () => {
    const result = ok(parseSchema({ type: "avro", specification: {
      type: "record", name: "Node", namespace: "x", fields: [
        { name: "value", type: "long" },
        { name: "children", type: { type: "array", items: "Node" } },
        { name: "next", type: ["null", "Node"] },
      ],
    } }, "schema"));
    const [, children, next] = result.models[0].fields;
    expect(children.items).toMatchObject({ type: "object", ref: "x.Node" });
    expect(next).toMatchObject({ type: "object", ref: "x.Node", required: false, physicalType: '["null","Node"]' });
    expect(result.definitions?.map((d) => d.name)).toEqual(["x.Node"]);
    expect(resolve(next, result.definitions).fields?.map((f) => f.name)).toEqual(["value", "children", "next"]);
  });

  it("describes an Avro enum used many times once", () => {
    const symbols = Array.from({ length: 500 }, (_, i) => `S${i}`);
    const fields = [{ name: "f0", type: { type: "enum", name: "E", symbols } }, ...Array.from({ length: 200 }, (_, i) => ({ name: `f${i + 1}`, type: "E" }))];
    const result = ok(parseSchema({ type: "avro", specification: { type: "record", name: "R", fields } }, "schema"));
    expect(JSON.stringify(result).length).toBeLessThan(40_000);
    expect(result.models[0].fields[5]).toMatchObject({ type: "enum", ref: "E" });
  });

  for (const keyword of ["definitions", "$defs"] as const) {
    it(`describes each JSON Schema $ref target once (${keyword})`, () => {
      const spec = jsonSchemaBomb(30, keyword);
      const result = ok(parseSchema({ type: "jsonschema", specification: spec }, "schema"));
      expect(JSON.stringify(result).length).toBeLessThan(10 * spec.length);
      const root = result.models[0].fields[0];
      expect(root.fields?.map((f) => f.name)).toEqual(["a", "b", "c"]);
      for (const use of root.fields!) expect(use).toMatchObject({ type: "object", ref: `model1#/${keyword}/t1`, physicalType: "object" });
    });
  }

  it("keeps allOf merges linear too: a merged base is described once", () => {
    const defs: Record<string, unknown> = { b30: { type: "object", properties: { v: { type: "string" } } } };
    for (let i = 0; i < 30; i++) {
      defs[`b${i}`] = { type: "object", properties: { x: { allOf: [{ $ref: `#/definitions/b${i + 1}` }] }, y: { allOf: [{ $ref: `#/definitions/b${i + 1}` }] } } };
    }
    const spec = JSON.stringify({ type: "object", allOf: [{ $ref: "#/definitions/b0" }], definitions: defs });
    const result = ok(parseSchema({ type: "jsonschema", specification: spec }, "schema"));
    expect(JSON.stringify(result).length).toBeLessThan(10 * spec.length);
  });

  it("refers to a recursive $ref and to the root", () => {
    const result = ok(parseSchema({ type: "jsonschema", specification: {
      title: "Tree",
      type: "object",
      properties: {
        node: { $ref: "#/$defs/node" },
        parent: { $ref: "#" },
      },
      $defs: { node: { type: "object", properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
    } }, "schema"));
    const [node, parent] = result.models[0].fields;
    expect(node).toMatchObject({ type: "object", ref: "Tree#/$defs/node" });
    expect(resolve(node, result.definitions).fields?.[1].items).toMatchObject({ type: "object", ref: "Tree#/$defs/node" });
    expect(parent).toMatchObject({ type: "object", ref: "Tree#" });
    expect(result.definitions?.map((d) => d.name).sort()).toEqual(["Tree#", "Tree#/$defs/node"]);
  });

  it("describes a shared simple type in place", () => {
    const result = ok(parseSchema({ type: "jsonschema", specification: {
      type: "object",
      properties: { a: { $ref: "#/definitions/email" }, b: { $ref: "#/definitions/email" } },
      definitions: { email: { type: "string", format: "email" } },
    } }, "schema"));
    expect(result.models[0].fields.map((f) => [f.name, f.type, f.ref])).toEqual([["a", "string", undefined], ["b", "string", undefined]]);
    expect(result.definitions).toBeUndefined();
  });

  it("keeps tuple positions (prefixItems) in order", () => {
    const result = ok(parseSchema({ type: "jsonschema", specification: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { point: { type: "array", prefixItems: [{ type: "number" }, { type: "string" }] } },
    } }, "schema"));
    expect(result.models[0].fields[0].items).toMatchObject({ type: "union", physicalType: "tuple", fields: [{ name: "0", type: "number" }, { name: "1", type: "string" }] });
  });

  it("stops at the field limit with a violation naming it", () => {
    const properties = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, { type: "string" }]));
    const defs = { base: { type: "object", properties } };
    const holders = Object.fromEntries(Array.from({ length: 340 }, (_, i) => [`h${i}`, { allOf: [{ $ref: "#/definitions/base" }] }]));
    const result = parseSchema({ type: "jsonschema", specification: { type: "object", properties: holders, definitions: defs } }, "schema");
    expect(result).toMatchObject({ ok: false, violations: [{ field: "schema.specification", message: expect.stringContaining("100000 fields") }] });
  });
  it("does not repeat a referred type's long description at each use (JSON Schema)", () => {
    const properties = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, { $ref: "#/$defs/t" }]));
    const spec = JSON.stringify({ type: "object", properties, $defs: { t: { type: "object", description: "d".repeat(10_000), properties: { v: { type: "string" } } } } });
    const result = ok(parseSchema({ type: "jsonschema", specification: spec }, "schema"));
    expect(JSON.stringify(result).length).toBeLessThan(3 * spec.length);
    expect(result.models[0].fields[5]).toMatchObject({ name: "p5", ref: expect.any(String) });
    expect(result.models[0].fields[5].description).toBeUndefined();
  });
});
