/**
 * Schema validation cost relative to plain parsing of the same text.
 * Target: full `parseSchema` validation takes at most 5× a plain `JSON.parse` / `yaml.parse`.
 */
import { parse as parseYaml } from "yaml";
import { parseSchema } from "../src/schema-formats/index.js";

const RUNS = 15;
const BQ_TYPES = ["STRING", "INT64", "NUMERIC", "TIMESTAMP", "BOOL", "DATE", "FLOAT64", "BYTES", "JSON", "GEOGRAPHY"];
const DBT_TYPES = ["bigint", "text", "numeric(12,2)", "timestamp", "boolean", "date", "varchar(64)", "jsonb", "double precision", "int"];

/** A 1,000-column BigQuery table resource, as `tables.get` would return it. */
export function bigQueryTableText(columns = 1000): string {
  const fields = Array.from({ length: columns }, (_, i) => {
    const type = BQ_TYPES[i % BQ_TYPES.length];
    const field: Record<string, unknown> = { name: `column_${i}`, type, mode: i % 3 === 0 ? "REQUIRED" : "NULLABLE", description: `Column number ${i}` };
    if (type === "NUMERIC") Object.assign(field, { precision: "18", scale: "4" });
    if (i % 100 === 99) {
      Object.assign(field, { type: "RECORD", mode: "REPEATED", fields: [{ name: "key", type: "STRING" }, { name: "value", type: "FLOAT64" }] });
    }
    return field;
  });
  return JSON.stringify({
    kind: "bigquery#table",
    tableReference: { projectId: "acme-prod", datasetId: "bench", tableId: "wide_table" },
    type: "TABLE",
    description: "Benchmark table",
    schema: { fields },
  }, null, 2);
}

/** A dbt properties file with 500 models of 10 columns each, some with tests. */
export function dbtText(models = 500, columns = 10): string {
  const lines = ["version: 2", "", "models:"];
  for (let m = 0; m < models; m++) {
    lines.push(`  - name: model_${m}`, `    description: Benchmark model ${m}`, "    config:", `      materialized: ${m % 2 ? "view" : "table"}`, "    columns:");
    for (let c = 0; c < columns; c++) {
      lines.push(`      - name: col_${c}`, `        data_type: ${DBT_TYPES[c]}`, `        description: Column ${c} of model ${m}`);
      if (c === 0) lines.push("        tests:", "          - unique", "          - not_null");
      if (c === 6) lines.push("        tests:", "          - accepted_values:", "              values: ['a', 'b', 'c']");
      if (c === 9 && m > 0) lines.push("        tests:", "          - relationships:", `              to: ref('model_${m - 1}')`, "              field: col_0");
    }
  }
  return lines.join("\n") + "\n";
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function time(fn: () => unknown, runs = RUNS): number {
  for (let i = 0; i < 3; i++) fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

function compare(parse: () => unknown, validate: () => unknown) {
  const parseMs = time(parse);
  const validateMs = time(validate);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return { parseMs: round(parseMs), validateMs: round(validateMs), ratio: round(validateMs / parseMs) };
}

export async function run(): Promise<Record<string, unknown>> {
  const bqText = bigQueryTableText();
  const yamlText = dbtText();
  const check = (type: string, text: string) => {
    const result = parseSchema({ type, specification: text }, "schema[0]");
    if (!result.ok) throw new Error(`benchmark input is invalid: ${JSON.stringify(result.violations.slice(0, 3))}`);
  };
  check("bigquery", bqText);
  check("dbt", yamlText);
  return {
    name: "schema-validation",
    bigquery: { columns: 1000, bytes: bqText.length, ...compare(() => JSON.parse(bqText), () => parseSchema({ type: "bigquery", specification: bqText }, "schema[0]")) },
    dbt: { models: 500, columns: 5000, bytes: yamlText.length, ...compare(() => parseYaml(yamlText), () => parseSchema({ type: "dbt", specification: yamlText }, "schema[0]")) },
    target: "ratio <= 5",
  };
}
