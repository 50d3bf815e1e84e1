/**
 * The cost of comparing two versions of a contract relative to validating them.
 * Target: diffing two 1,000-column BigQuery tables (parse both, then diff their models) takes at
 * most 3× validating the two of them, measured side by side in the same run.
 */
import { diffModels } from "../src/contract-changes/diff.js";
import { parseSchema, type NormalizedModel } from "../src/schema-formats/index.js";
import { bigQueryTableText } from "./schemas.bench.js";

const RUNS = 15;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median times of `a` and `b`, measured in alternation so that load on the machine hits both alike. */
function timeSideBySide(a: () => unknown, b: () => unknown): [number, number] {
  for (let i = 0; i < 3; i++) {
    a();
    b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let start = performance.now();
    a();
    as.push(performance.now() - start);
    start = performance.now();
    b();
    bs.push(performance.now() - start);
  }
  return [median(as), median(bs)];
}

function models(text: string): NormalizedModel[] {
  const result = parseSchema({ type: "bigquery", specification: text }, "schema[0]");
  if (!result.ok) throw new Error(`benchmark input is invalid: ${JSON.stringify(result.violations.slice(0, 3))}`);
  return result.models;
}

export async function run(): Promise<Record<string, unknown>> {
  const before = bigQueryTableText();
  // The next version: every INT64 column widened to FLOAT64, every 50th column removed, 20 added.
  const table = JSON.parse(before) as { schema: { fields: Array<Record<string, unknown>> } };
  table.schema.fields = table.schema.fields.filter((_, i) => i % 50 !== 49).map((f) => (f.type === "INT64" ? { ...f, type: "FLOAT64" } : f));
  for (let i = 0; i < 20; i++) table.schema.fields.push({ name: `added_${i}`, type: "STRING", mode: "NULLABLE" });
  const after = JSON.stringify(table, null, 2);

  const changes = diffModels(models(before), models(after)).length;
  const [validateMs, compareMs] = timeSideBySide(
    () => {
      models(before);
      models(after);
    },
    () => diffModels(models(before), models(after)),
  );
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    name: "contract-versions",
    bigquery: { columns: 1000, changes, validateBothMs: round(validateMs), parseAndDiffMs: round(compareMs), ratio: round(compareMs / validateMs) },
    target: "ratio <= 3 (parse + diff of two versions vs. validating both)",
  };
}
