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
});
