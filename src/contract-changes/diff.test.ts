import { describe, expect, it } from "vitest";
import { contractFormatOf } from "../contract-formats/index.js";
import { parseSchema, type NormalizedModel } from "../schema-formats/index.js";
import { diffModels } from "./diff.js";
import { CHANGE_RULES, type ChangeKind } from "./rules.js";

/** Normalized models of one schema, through the real parser of its format. */
function models(type: string, specification: unknown): NormalizedModel[] {
  const result = parseSchema({ type, specification }, "schema");
  if (!result.ok) throw new Error(`${type}: ${JSON.stringify(result.violations)}`);
  return result.models;
}

// Compact builders for each format; every case below changes one thing.
const dbt = (columns: string) => models("dbt", `version: 2\nmodels:\n  - name: orders\n    columns:\n${columns}`);
const col = (name: string, type: string, extra = "") => `      - name: ${name}\n        data_type: ${type}\n${extra}`;
const bq = (...fields: object[]) => models("bigquery", JSON.stringify({ tableReference: { projectId: "p", datasetId: "d", tableId: "orders" }, schema: { fields } }));
const js = (properties: object, required: string[] = []) =>
  models("jsonschema", JSON.stringify({ $schema: "http://json-schema.org/draft-07/schema#", title: "Order", type: "object", properties, required }));
const avro = (...fields: object[]) => models("avro", JSON.stringify({ type: "record", name: "Order", namespace: "shop", fields }));

/** Models of a whole contract document (ODCS, DCS 1.x), through its format. */
function contractModels(doc: Record<string, unknown>): NormalizedModel[] {
  const format = contractFormatOf(doc);
  const violations = format.validate(doc);
  if (violations.length > 0) throw new Error(`${format.name}: ${JSON.stringify(violations)}`);
  return format.models(doc).flatMap((g) => g.models);
}
const odcs = (...properties: object[]) =>
  contractModels({ apiVersion: "v3.1.0", kind: "DataContract", id: "c", version: "1.0.0", status: "active", schema: [{ name: "orders", physicalType: "table", properties }] });
const dcs1 = (fields: object) =>
  contractModels({ dataContractSpecification: "1.1.0", id: "c", info: { title: "Orders", version: "1.0.0", owner: "sales" }, models: { orders: { fields } } });
const NULLS = { type: "library", metric: "nullValues", mustBe: 0 };

interface Case {
  name: string;
  before: NormalizedModel[];
  after: NormalizedModel[];
  /** Every change expected, as `kind path`. */
  expected: string[];
}

const CASES: Case[] = [
  // dbt
  { name: "dbt: column removed", before: dbt(col("id", "int") + col("note", "text")), after: dbt(col("id", "int")), expected: ["field-removed orders.note"] },
  { name: "dbt: optional column added", before: dbt(col("id", "int")), after: dbt(col("id", "int") + col("note", "text")), expected: ["field-added-optional orders.note"] },
  { name: "dbt: column added with not_null", before: dbt(col("id", "int")), after: dbt(col("id", "int") + col("note", "text", "        tests: [not_null]\n")), expected: ["field-added-required orders.note"] },
  { name: "dbt: int to bigint", before: dbt(col("id", "int")), after: dbt(col("id", "bigint")), expected: ["type-widened orders.id"] },
  { name: "dbt: bigint to int", before: dbt(col("id", "bigint")), after: dbt(col("id", "int")), expected: ["type-changed orders.id"] },
  { name: "dbt: text to integer", before: dbt(col("code", "text")), after: dbt(col("code", "integer")), expected: ["type-changed orders.code"] },
  { name: "dbt: varchar(50) to varchar(20)", before: dbt(col("code", "varchar(50)")), after: dbt(col("code", "varchar(20)")), expected: ["type-changed orders.code"] },
  { name: "dbt: varchar(20) to text", before: dbt(col("code", "varchar(20)")), after: dbt(col("code", "text")), expected: ["type-widened orders.code"] },
  { name: "dbt: numeric(10,2) to numeric(12,2)", before: dbt(col("amount", "numeric(10,2)")), after: dbt(col("amount", "numeric(12,2)")), expected: ["type-widened orders.amount"] },
  { name: "dbt: numeric(10,2) to numeric(10,4)", before: dbt(col("amount", "numeric(10,2)")), after: dbt(col("amount", "numeric(10,4)")), expected: ["type-changed orders.amount"] },
  { name: "dbt: not_null test removed", before: dbt(col("id", "int", "        tests: [not_null, unique]\n")), after: dbt(col("id", "int", "        tests: [unique]\n")), expected: ["made-optional orders.id", "quality-rule-removed orders.id"] },
  { name: "dbt: unique test added", before: dbt(col("id", "int")), after: dbt(col("id", "int", "        tests: [unique]\n")), expected: ["quality-rule-added orders.id"] },
  { name: "dbt: description changed", before: dbt(col("id", "int", "        description: old\n")), after: dbt(col("id", "int", "        description: new\n")), expected: ["field-description-changed orders.id"] },
  { name: "dbt: column renamed", before: dbt(col("id", "int") + col("note", "text")), after: dbt(col("id", "int") + col("remark", "text")), expected: ["field-renamed orders.note"] },
  {
    name: "dbt: model renamed",
    before: models("dbt", "version: 2\nmodels:\n  - name: orders\n    columns: [{name: id, data_type: int}]\n"),
    after: models("dbt", "version: 2\nmodels:\n  - name: purchases\n    columns: [{name: id, data_type: int}]\n"),
    expected: ["model-renamed orders"],
  },
  {
    name: "dbt: model added",
    before: models("dbt", "version: 2\nmodels:\n  - name: orders\n    columns: [{name: id, data_type: int}]\n"),
    after: models("dbt", "version: 2\nmodels:\n  - name: orders\n    columns: [{name: id, data_type: int}]\n  - name: refunds\n    columns: [{name: id, data_type: int}, {name: reason, data_type: text}]\n"),
    expected: ["model-added refunds"],
  },
  {
    name: "dbt: model removed",
    before: models("dbt", "version: 2\nmodels:\n  - name: orders\n    columns: [{name: id, data_type: int}]\n  - name: refunds\n    columns: [{name: reason, data_type: text}]\n"),
    after: models("dbt", "version: 2\nmodels:\n  - name: orders\n    columns: [{name: id, data_type: int}]\n"),
    expected: ["model-removed refunds"],
  },
  {
    name: "dbt: table becomes a view",
    before: models("dbt", "version: 2\nmodels:\n  - name: orders\n    config: {materialized: table}\n    columns: [{name: id, data_type: int}]\n"),
    after: models("dbt", "version: 2\nmodels:\n  - name: orders\n    config: {materialized: view}\n    columns: [{name: id, data_type: int}]\n"),
    expected: ["model-kind-changed orders"],
  },
  { name: "dbt: nothing changed", before: dbt(col("id", "int")), after: dbt(col("id", "int")), expected: [] },

  // BigQuery
  { name: "BigQuery: NULLABLE to REQUIRED", before: bq({ name: "id", type: "STRING", mode: "NULLABLE" }), after: bq({ name: "id", type: "STRING", mode: "REQUIRED" }), expected: ["made-required orders.id"] },
  { name: "BigQuery: REQUIRED to NULLABLE", before: bq({ name: "id", type: "STRING", mode: "REQUIRED" }), after: bq({ name: "id", type: "STRING" }), expected: ["made-optional orders.id"] },
  { name: "BigQuery: INTEGER respelled INT64", before: bq({ name: "n", type: "INTEGER" }), after: bq({ name: "n", type: "INT64" }), expected: ["physical-type-respelled orders.n"] },
  { name: "BigQuery: INT64 to FLOAT64", before: bq({ name: "n", type: "INT64" }), after: bq({ name: "n", type: "FLOAT64" }), expected: ["type-widened orders.n"] },
  { name: "BigQuery: FLOAT64 to INT64", before: bq({ name: "n", type: "FLOAT64" }), after: bq({ name: "n", type: "INT64" }), expected: ["type-changed orders.n"] },
  { name: "BigQuery: STRING to TIMESTAMP", before: bq({ name: "at", type: "STRING" }), after: bq({ name: "at", type: "TIMESTAMP" }), expected: ["type-changed orders.at"] },
  { name: "BigQuery: TIMESTAMP to DATETIME", before: bq({ name: "at", type: "TIMESTAMP" }), after: bq({ name: "at", type: "DATETIME" }), expected: ["type-changed orders.at"] },
  { name: "BigQuery: maxLength 100 to 50", before: bq({ name: "code", type: "STRING", maxLength: "100" }), after: bq({ name: "code", type: "STRING", maxLength: "50" }), expected: ["length-narrowed orders.code"] },
  { name: "BigQuery: maxLength removed", before: bq({ name: "code", type: "STRING", maxLength: "100" }), after: bq({ name: "code", type: "STRING" }), expected: ["length-widened orders.code"] },
  { name: "BigQuery: NUMERIC precision 10 to 8", before: bq({ name: "x", type: "NUMERIC", precision: "10", scale: "2" }), after: bq({ name: "x", type: "NUMERIC", precision: "8", scale: "2" }), expected: ["precision-narrowed orders.x"] },
  {
    name: "BigQuery: nested RECORD field removed",
    before: bq({ name: "customer", type: "RECORD", fields: [{ name: "id", type: "STRING" }, { name: "email", type: "STRING" }] }),
    after: bq({ name: "customer", type: "RECORD", fields: [{ name: "id", type: "STRING" }] }),
    expected: ["field-removed orders.customer.email"],
  },
  {
    name: "BigQuery: REPEATED element type narrowed",
    before: bq({ name: "scores", type: "INT64", mode: "REPEATED" }),
    after: bq({ name: "scores", type: "STRING", mode: "REPEATED" }),
    expected: ["type-changed orders.scores[]"],
  },
  { name: "BigQuery: column added NULLABLE", before: bq({ name: "id", type: "STRING" }), after: bq({ name: "id", type: "STRING" }, { name: "note", type: "STRING" }), expected: ["field-added-optional orders.note"] },

  // JSON Schema
  { name: "JSON Schema: property removed", before: js({ id: { type: "string" }, total: { type: "number" } }), after: js({ id: { type: "string" } }), expected: ["field-removed Order.total"] },
  { name: "JSON Schema: optional made required", before: js({ id: { type: "string" } }), after: js({ id: { type: "string" } }, ["id"]), expected: ["made-required Order.id"] },
  { name: "JSON Schema: integer to number", before: js({ n: { type: "integer" } }), after: js({ n: { type: "number" } }), expected: ["type-widened Order.n"] },
  { name: "JSON Schema: number to integer", before: js({ n: { type: "number" } }), after: js({ n: { type: "integer" } }), expected: ["type-changed Order.n"] },
  { name: "JSON Schema: enum value removed", before: js({ s: { type: "string", enum: ["a", "b", "c"] } }), after: js({ s: { type: "string", enum: ["a", "b"] } }), expected: ["enum-narrowed Order.s"] },
  { name: "JSON Schema: enum value added", before: js({ s: { type: "string", enum: ["a", "b"] } }), after: js({ s: { type: "string", enum: ["a", "b", "c"] } }), expected: ["enum-widened Order.s"] },
  { name: "JSON Schema: string to boolean", before: js({ flag: { type: "string" } }), after: js({ flag: { type: "boolean" } }), expected: ["type-changed Order.flag"] },

  // Avro
  { name: "Avro: int to long", before: avro({ name: "n", type: "int" }), after: avro({ name: "n", type: "long" }), expected: ["type-widened Order.n"] },
  { name: "Avro: long to int", before: avro({ name: "n", type: "long" }), after: avro({ name: "n", type: "int" }), expected: ["type-changed Order.n"] },
  { name: "Avro: float to double", before: avro({ name: "x", type: "float" }), after: avro({ name: "x", type: "double" }), expected: ["type-widened Order.x"] },
  { name: "Avro: field made nullable", before: avro({ name: "s", type: "string" }), after: avro({ name: "s", type: ["null", "string"], default: null }), expected: ["made-optional Order.s"] },
  {
    name: "Avro: enum symbol removed",
    before: avro({ name: "state", type: { type: "enum", name: "State", symbols: ["NEW", "PAID", "SHIPPED"] } }),
    after: avro({ name: "state", type: { type: "enum", name: "State", symbols: ["NEW", "PAID"] } }),
    expected: ["enum-narrowed Order.state"],
  },
  { name: "Avro: string to int", before: avro({ name: "code", type: "string" }), after: avro({ name: "code", type: "int" }), expected: ["type-changed Order.code"] },

  // ODCS
  { name: "ODCS: property removed", before: odcs({ name: "id", logicalType: "string" }, { name: "note", logicalType: "string" }), after: odcs({ name: "id", logicalType: "string" }), expected: ["field-removed orders.note"] },
  { name: "ODCS: primary key moved", before: odcs({ name: "id", logicalType: "string", primaryKey: true }, { name: "code", logicalType: "string" }), after: odcs({ name: "id", logicalType: "string" }, { name: "code", logicalType: "string", primaryKey: true }), expected: ["primary-key-changed orders.id", "primary-key-changed orders.code"] },
  { name: "ODCS: quality rule removed", before: odcs({ name: "id", logicalType: "string", quality: [NULLS] }), after: odcs({ name: "id", logicalType: "string" }), expected: ["quality-rule-removed orders.id"] },
  { name: "ODCS: quality rule added", before: odcs({ name: "id", logicalType: "string" }), after: odcs({ name: "id", logicalType: "string", quality: [NULLS] }), expected: ["quality-rule-added orders.id"] },
  { name: "ODCS: maxLength lowered", before: odcs({ name: "id", logicalType: "string", logicalTypeOptions: { maxLength: 36 } }), after: odcs({ name: "id", logicalType: "string", logicalTypeOptions: { maxLength: 20 } }), expected: ["length-narrowed orders.id"] },
  { name: "ODCS: pattern added", before: odcs({ name: "state", logicalType: "string" }), after: odcs({ name: "state", logicalType: "string", logicalTypeOptions: { pattern: "^[A-Z]+$" } }), expected: ["pattern-tightened orders.state"] },
  { name: "ODCS: integer to number", before: odcs({ name: "n", logicalType: "integer" }), after: odcs({ name: "n", logicalType: "number" }), expected: ["type-widened orders.n"] },
  { name: "ODCS: description only", before: odcs({ name: "n", logicalType: "integer", description: "old" }), after: odcs({ name: "n", logicalType: "integer", description: "new" }), expected: ["field-description-changed orders.n"] },
  { name: "ODCS: classification changed", before: odcs({ name: "email", logicalType: "string", classification: "internal" }), after: odcs({ name: "email", logicalType: "string", classification: "restricted" }), expected: ["classification-changed orders.email"] },

  // DCS 1.x
  { name: "DCS 1.x: enum narrowed", before: dcs1({ s: { type: "string", enum: ["a", "b"] } }), after: dcs1({ s: { type: "string", enum: ["a"] } }), expected: ["enum-narrowed orders.s"] },
  { name: "DCS 1.x: unique added", before: dcs1({ id: { type: "string" } }), after: dcs1({ id: { type: "string", unique: true } }), expected: ["unique-added orders.id"] },
  { name: "DCS 1.x: unique removed", before: dcs1({ id: { type: "string", unique: true } }), after: dcs1({ id: { type: "string" } }), expected: ["unique-removed orders.id"] },
  { name: "DCS 1.x: made required", before: dcs1({ id: { type: "string" } }), after: dcs1({ id: { type: "string", required: true } }), expected: ["made-required orders.id"] },
];

describe("the diff of two contract versions", () => {
  it("has at least 40 cases across the formats", () => expect(CASES.length).toBeGreaterThanOrEqual(40));

  it("judges the same change the same way in every format", () => {
    const removed = (m: NormalizedModel[], n: NormalizedModel[]) => diffModels(m, n).map((c) => `${c.change} ${c.breaking}`);
    const expected = ["field-removed true"];
    expect(removed(dbt(col("id", "int") + col("x", "text")), dbt(col("id", "int")))).toEqual(expected);
    expect(removed(bq({ name: "id", type: "INT64" }, { name: "x", type: "STRING" }), bq({ name: "id", type: "INT64" }))).toEqual(expected);
    expect(removed(odcs({ name: "id", logicalType: "integer" }, { name: "x", logicalType: "string" }), odcs({ name: "id", logicalType: "integer" }))).toEqual(expected);
    expect(removed(dcs1({ id: { type: "integer" }, x: { type: "string" } }), dcs1({ id: { type: "integer" } }))).toEqual(expected);
  });

  it.each(CASES)("$name", ({ before, after, expected }) => {
    const changes = diffModels(before, after);
    expect(changes.map((c) => `${c.change} ${c.path}`).sort()).toEqual([...expected].sort());
    for (const change of changes) {
      expect(change.breaking).toBe(CHANGE_RULES[change.change as ChangeKind].breaking);
      expect(change.message).toMatch(/\.$/);
    }
  });

  it("pairs a rename only when the shape is unambiguous", () => {
    const before = dbt(col("a", "text") + col("b", "text"));
    const after = dbt(col("c", "text") + col("d", "text"));
    expect(diffModels(before, after).map((c) => c.change).sort()).toEqual(["field-added-optional", "field-added-optional", "field-removed", "field-removed"]);
  });

  it("diffs two 1,000-column tables in linear work", () => {
    const wide = (type: string) => bq(...Array.from({ length: 1000 }, (_, i) => ({ name: `c${i}`, type: i % 2 ? type : "STRING" })));
    const changes = diffModels(wide("INT64"), wide("FLOAT64"));
    expect(changes).toHaveLength(500);
    expect(changes.every((c) => c.change === "type-widened")).toBe(true);
  });
});
