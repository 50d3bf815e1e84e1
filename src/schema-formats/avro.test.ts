import { describe, expect, it } from "vitest";
import { avroParser, renderAvroType } from "./avro.js";

describe("avro", () => {
  it("resolves names relative to the enclosing namespace", () => {
    const result = avroParser.parse({
      type: "record", name: "Outer", namespace: "a.b", fields: [
        { name: "inner", type: { type: "record", name: "Inner", fields: [{ name: "v", type: "int" }] } },
        { name: "again", type: "Inner" },
        { name: "full", type: "a.b.Inner" },
      ],
    }, "s");
    expect(result.ok).toBe(true);
  });

  it("renders types compactly", () => {
    expect(renderAvroType(["null", { type: "array", items: { type: "map", values: "long" } }])).toBe('["null","array<map<long>>"]');
    expect(renderAvroType({ type: "bytes", logicalType: "decimal", precision: 9, scale: 2 })).toBe("bytes(decimal(9,2))");
  });

  it("reports all problems at once (avsc alone stops at the first)", () => {
    const result = avroParser.parse('{"type":"record","name":"R","fields":[{"name":"a","type":"x"},{"name":"b","type":"y"}]}', "schema[0].specification");
    expect(result).toEqual({ ok: false, violations: [
      expect.objectContaining({ field: "schema[0].specification.fields[0].type", line: 1, column: 58 }),
      expect.objectContaining({ field: "schema[0].specification.fields[1].type", line: 1, column: 82 }),
    ] });
  });

  it("checks defaults of nested records", () => {
    const result = avroParser.parse({ type: "record", name: "R", fields: [
      { name: "o", type: { type: "record", name: "O", fields: [{ name: "id", type: "long" }] }, default: {} },
    ] }, "s");
    expect(result).toMatchObject({ ok: false, violations: [{ field: "s.fields[0].default" }] });
  });
});
