/**
 * Quality rules and dbt tests in words, as the contract page shows them (docs/formats.md):
 * `nullValues must be 0`, `rowCount must be at least 100`, `duplicateValues must be less than 1 percent`.
 */
import type { QualityRule } from "../schema-formats/types.js";

/** ODCS comparison operators, and the Data Contract Specification's spellings of two of them. */
const OPERATOR_WORDS: Record<string, string> = {
  mustBe: "must be",
  mustNotBe: "must not be",
  mustBeGreaterThan: "must be greater than",
  mustBeGreaterOrEqualTo: "must be at least",
  mustBeGreaterThanOrEqualTo: "must be at least",
  mustBeLessThan: "must be less than",
  mustBeLessOrEqualTo: "must be at most",
  mustBeLessThanOrEqualTo: "must be at most",
  mustBeBetween: "must be between",
  mustNotBeBetween: "must not be between",
};

function shown(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.length === 2) return `${shown(value[0])} and ${shown(value[1])}`;
  return JSON.stringify(value);
}

/** `must be 0`, `must be between 1 and 10`: a comparison in words. */
export function comparisonInWords(operator: string, value: unknown, unit?: unknown): string {
  const words = OPERATOR_WORDS[operator] ?? operator;
  const suffix = typeof unit === "string" && unit !== "" && unit !== "rows" ? ` ${unit}` : "";
  return `${words} ${shown(value)}${suffix}`;
}

/** What a metric is, with its arguments (`invalidValues (validValues: ["a","b"])`). */
function metricInWords(rule: QualityRule): string {
  const metric = rule.metric ?? "check";
  const args = rule.arguments && Object.keys(rule.arguments).length > 0 ? ` (${Object.entries(rule.arguments).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")})` : "";
  return metric + args;
}

/** One sentence saying what the rule requires. */
export function ruleInWords(rule: QualityRule): string {
  const comparison = rule.comparison ? comparisonInWords(rule.comparison.operator, rule.comparison.value, rule.extra?.unit) : undefined;
  switch (rule.type) {
    case "library":
      return comparison ? `${metricInWords(rule)} ${comparison}` : metricInWords(rule);
    case "sql":
      return comparison ? `the query's result ${comparison}` : (rule.description ?? "the query must hold");
    case "custom":
      return `${rule.engine ?? "custom"} check${rule.description ? `: ${rule.description}` : rule.name ? ` ${rule.name}` : ""}`;
    default:
      return rule.description ?? rule.name ?? "a rule in words";
  }
}

/** A dbt test as written (`unique`, `accepted_values`, `dbt_utils.expression_is_true`) in words. */
export function testInWords(test: string): string {
  if (test === "not_null") return "must not be null (dbt not_null)";
  if (test === "unique") return "must be unique (dbt unique)";
  if (test === "accepted_values") return "must be one of the accepted values (dbt accepted_values)";
  if (test === "relationships") return "must refer to an existing row (dbt relationships)";
  return `dbt test ${test}`;
}
