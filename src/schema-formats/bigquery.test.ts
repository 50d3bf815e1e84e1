import { describe, expect, it } from "vitest";
import { bigqueryParser } from "./bigquery.js";

const table = (fields: unknown[]) => ({ tableReference: { projectId: "p", datasetId: "d", tableId: "t" }, schema: { fields } });
const fieldsOf = (fields: unknown[]) => {
  const result = bigqueryParser.parse(table(fields), "s");
  return result.ok ? [] : result.violations.map((v) => v.field);
};

describe("bigquery", () => {
  it("applies BigQuery's precision and scale rules", () => {
    expect(fieldsOf([{ name: "a", type: "NUMERIC", precision: "29" }])).toEqual([]);
    expect(fieldsOf([{ name: "a", type: "NUMERIC", precision: "30" }])).toEqual(["s.schema.fields[0].precision"]);
    expect(fieldsOf([{ name: "a", type: "NUMERIC", precision: 38, scale: 9 }])).toEqual([]);
    expect(fieldsOf([{ name: "a", type: "NUMERIC", precision: 2, scale: 2 }])).toEqual([]);
    expect(fieldsOf([{ name: "a", type: "BIGNUMERIC", precision: 76, scale: 38 }])).toEqual([]);
    expect(fieldsOf([{ name: "a", type: "BIGNUMERIC", precision: 77, scale: 38 }])).toEqual(["s.schema.fields[0].precision"]);
    expect(fieldsOf([{ name: "a", type: "NUMERIC", scale: 2 }])).toEqual(["s.schema.fields[0].scale"]);
    expect(fieldsOf([{ name: "a", type: "STRING", maxLength: "10" }])).toEqual([]);
    expect(fieldsOf([{ name: "a", type: "STRING", maxLength: "1e3" }])).toEqual(["s.schema.fields[0].maxLength"]);
  });

  it("normalizes REPEATED to arrays and REQUIRED to required", () => {
    const result = bigqueryParser.parse(table([
      { name: "tags", type: "STRING", mode: "REPEATED", description: "labels" },
      { name: "id", type: "INT64", mode: "REQUIRED" },
    ]), "s");
    if (!result.ok) throw new Error("expected ok");
    expect(result.models[0].fields).toEqual([
      { name: "tags", type: "array", physicalType: "ARRAY<STRING>", required: false, description: "labels",
        items: { name: "items", type: "string", physicalType: "STRING", required: true } },
      { name: "id", type: "integer", physicalType: "INT64", required: true },
    ]);
  });

  it("checks field name length and characters", () => {
    expect(fieldsOf([{ name: "a".repeat(300), type: "STRING" }])).toEqual([]);
    expect(fieldsOf([{ name: "a".repeat(301), type: "STRING" }])).toEqual(["s.schema.fields[0].name"]);
    expect(fieldsOf([{ name: "_ok_1", type: "STRING" }, { name: "ca.fé", type: "STRING" }])).toEqual(["s.schema.fields[1].name"]);
  });

  it("accepts flexible column names and refuses what BigQuery refuses", () => {
    expect(fieldsOf([
      { name: "Order Total", type: "NUMERIC" }, { name: "prix-ht", type: "STRING" }, { name: "straße", type: "STRING" },
      { name: "1st", type: "INT64" }, { name: "a&b%c=d+e:f'g<h>i#j|k", type: "STRING" }, { name: "名前", type: "STRING" },
    ])).toEqual([]);
    expect(fieldsOf([
      { name: "a.b", type: "STRING" }, { name: "a/b", type: "STRING" }, { name: "a!", type: "STRING" },
      { name: "_PARTITIONTIME", type: "TIMESTAMP" }, { name: "_table_suffix", type: "STRING" }, { name: "x".repeat(301), type: "STRING" },
    ])).toEqual([0, 1, 2, 3, 4, 5].map((i) => `s.schema.fields[${i}].name`));
  });

  it("reads the bare field list that bq show --schema prints", () => {
    const printed = JSON.stringify([
      { name: "order id", type: "STRING", mode: "REQUIRED" },
      { name: "items", type: "RECORD", mode: "REPEATED", fields: [{ name: "sku", type: "STRING" }] },
    ], null, 2);
    const result = bigqueryParser.parse(printed, "s");
    if (!result.ok) throw new Error(JSON.stringify(result.violations));
    expect(result.models).toMatchObject([{ name: "table", kind: "table", fields: [{ name: "order id", required: true }, { name: "items", type: "array" }] }]);
    expect(bigqueryParser.parse({ fields: [{ name: "a", type: "STRING" }] }, "s")).toMatchObject({ ok: true, models: [{ fields: [{ name: "a" }] }] });
    // Problems in a bare list are located in it.
    expect(bigqueryParser.parse('[\n  {"name": "a", "type": "STRANG"}\n]', "s")).toMatchObject({
      ok: false, violations: [{ field: "s[0].type", line: 2, column: 25 }],
    });
  });
});
