import { describe, expect, it } from "vitest";
import { normalizeSchemaType, parseSchema, parsers, SCHEMA_TYPES } from "./index.js";
import type { ParseResult } from "./index.js";

function violations(result: ParseResult) {
  if (result.ok) throw new Error("expected violations");
  return result.violations;
}

describe("parseSchema", () => {
  it("validates the Schema object itself", () => {
    expect(violations(parseSchema({}, "schema[0]")).map((v) => v.field)).toEqual(["schema[0].type", "schema[0].specification"]);
    expect(violations(parseSchema({ type: "protobuf", specification: "x" }, "schema[1]"))).toEqual([
      expect.objectContaining({ field: "schema[1].type", message: expect.stringContaining("protobuf") }),
    ]);
    expect(violations(parseSchema("dbt", "schema"))[0].field).toBe("schema");
    expect(violations(parseSchema({ type: "dbt", specification: null }, "schema"))[0].field).toBe("schema.specification");
  });

  it("accepts json-schema as jsonschema and rejects other spellings", () => {
    expect(normalizeSchemaType("json-schema")).toBe("jsonschema");
    expect(normalizeSchemaType("jsonschema")).toBe("jsonschema");
    expect(normalizeSchemaType("JSONSchema")).toBeUndefined();
    expect(normalizeSchemaType(3)).toBeUndefined();
    for (const t of SCHEMA_TYPES) expect(normalizeSchemaType(t)).toBe(t);
  });

  it("accepts anything for custom and never parses it", () => {
    for (const specification of ["{not json", "", 42, { any: "thing" }]) {
      expect(parseSchema({ type: "custom", specification }, "schema")).toEqual({ ok: true, detectedType: "custom", models: [] });
    }
  });

  it("passes the specification path down to the parser", () => {
    const result = parseSchema({ type: "dbt", specification: "version: 2\nmodels:\n  - columns: []\n" }, "schema[2]");
    expect(violations(result)).toEqual([
      expect.objectContaining({ field: "schema[2].specification.models[0].name", line: 3, column: 5 }),
    ]);
  });

  it("reports an empty text specification", () => {
    for (const type of ["dbt", "bigquery", "jsonschema", "avro"]) {
      expect(violations(parseSchema({ type, specification: "  \n" }, "s"))).toEqual([
        expect.objectContaining({ field: "s.specification", message: expect.stringContaining("empty") }),
      ]);
    }
  });
});

describe("garbage never throws", () => {
  // A small deterministic generator, so a failure can be reproduced.
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const words = ["type", "record", "fields", "name", "models", "columns", "tests", "schema", "items", "values", "$ref", "#", "RECORD", "properties", "symbols", "union", "null", ""];
  function junk(depth: number): unknown {
    const r = random();
    if (depth > 5 || r < 0.3) {
      const leaves = [null, true, 0, -1, 1.5, 1e308, "", "x".repeat(Math.floor(random() * 50)), words[Math.floor(random() * words.length)]];
      return leaves[Math.floor(random() * leaves.length)];
    }
    if (r < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => junk(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = 0; i < Math.floor(random() * 5); i++) o[words[Math.floor(random() * words.length)]] = junk(depth + 1);
    return o;
  }

  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  const deepValue = JSON.parse("[".repeat(2000) + "]".repeat(2000)) as unknown;
  const specials: unknown[] = [
    undefined, null, 0, NaN, true, "", "null", "42", "[]", "{}", "[1,2", "{\"a\":", "\u0000\u0001", ":\n- - :", "*alias", "- &a [*a]",
    deep, deepValue, "x".repeat(1_000_000), "{".repeat(5000), "a: [" + "b, ".repeat(20_000) + "]", Symbol("s"), () => 1, new Date(), 10n,
    { type: "record", name: "A", fields: [{ name: "x", type: deepValue }] },
    { tableReference: { projectId: "p", datasetId: "d", tableId: "t" }, schema: { fields: deepValue } },
    { type: "object", properties: { a: deepValue } },
    { version: 2, models: [{ name: "m", columns: deepValue, tests: deepValue }] },
  ];

  for (const type of Object.keys(parsers)) {
    it(`${type}: random values and text`, () => {
      for (const spec of specials) {
        expect(() => parseSchema({ type, specification: spec }, "schema")).not.toThrow();
      }
      for (let i = 0; i < 200; i++) {
        const value = junk(0);
        expect(() => parseSchema({ type, specification: value }, "schema")).not.toThrow();
        let text: string;
        try {
          text = JSON.stringify(value) ?? "null";
        } catch {
          continue;
        }
        expect(() => parseSchema({ type, specification: text }, "schema")).not.toThrow();
        const r = parseSchema({ type, specification: text }, "schema");
        if (!r.ok) for (const v of r.violations) expect(typeof v.message).toBe("string");
      }
    });
  }
});
