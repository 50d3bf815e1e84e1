import { describe, expect, it } from "vitest";
import { dbtLogicalType, dbtParser } from "./dbt.js";

describe("dbt", () => {
  it("maps warehouse data types to logical types", () => {
    const cases: Array<[string | undefined, string]> = [
      ["text", "string"], ["VARCHAR(255)", "string"], ["character varying", "string"], ["char(2)", "string"],
      ["int", "integer"], ["BIGINT", "integer"], ["int64", "integer"], ["smallint", "integer"],
      ["numeric(10,2)", "number"], ["decimal", "number"], ["double precision", "number"], ["float64", "number"], ["real", "number"],
      ["bool", "boolean"], ["date", "date"], ["time", "time"], ["timestamp_ntz", "timestamp"], ["timestamp with time zone", "timestamp"],
      ["datetime", "timestamp"], ["bytea", "bytes"], ["binary", "bytes"], ["jsonb", "json"], ["variant", "json"],
      ["array<int>", "array"], ["text[]", "array"], ["struct<a int>", "object"], ["record", "object"], [undefined, "unknown"], ["weird", "unknown"],
    ];
    for (const [input, expected] of cases) expect(dbtLogicalType(input), String(input)).toBe(expected);
  });

  it("derives required from not_null tests and constraints, and keeps test names", () => {
    const result = dbtParser.parse(
      {
        version: 2,
        models: [{ name: "m", columns: [
          { name: "a", tests: [{ not_null: { config: { where: "x > 1" } } }] },
          { name: "b", constraints: [{ type: "not_null" }] },
          { name: "c", tests: ["unique"] },
        ] }],
      },
      "schema[0].specification",
    );
    if (!result.ok) throw new Error(JSON.stringify(result.violations));
    expect(result.models[0].fields.map((f) => [f.name, f.required, f.tests])).toEqual([
      ["a", true, ["not_null"]], ["b", true, undefined], ["c", false, ["unique"]],
    ]);
  });

  it("reports every problem with full paths and no positions for values", () => {
    const result = dbtParser.parse({ version: "2", models: [{ name: 1, columns: [{}, { name: "x", data_type: [] }] }] }, "schema[0].specification");
    if (result.ok) throw new Error("expected violations");
    expect(result.violations).toEqual([
      { field: "schema[0].specification.version", message: expect.any(String) },
      { field: "schema[0].specification.models[0].name", message: expect.any(String) },
      { field: "schema[0].specification.models[0].columns[0].name", message: expect.any(String) },
      { field: "schema[0].specification.models[0].columns[1].data_type", message: expect.any(String) },
    ]);
  });

  it("points at the offending YAML node", () => {
    const text = "version: 2\nmodels:\n  - name: m\n    columns:\n      - name: a\n        data_type: 5\n";
    const result = dbtParser.parse(text, "spec");
    expect(result).toEqual({ ok: false, violations: [expect.objectContaining({ field: "spec.models[0].columns[0].data_type", line: 6, column: 20 })] });
  });
});
