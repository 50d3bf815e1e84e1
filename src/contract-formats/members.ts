/** Reading members of documents whose shape is only known to be valid, not typed. */
import { isRecord } from "../schema-formats/text.js";
import type { QualityRule } from "../schema-formats/types.js";
import { QUALITY_OPERATORS } from "./odcs-shapes.js";
import { infoOwnership } from "../formats/documents.js";

export { customProperty } from "../formats/documents.js";

/** A non-empty string, or undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * What the Data Contract Specification (1.x and 0.9) and the Data Product Specification keep in
 * `info`: title, owner team, version, status, description, and a domain. None of the three
 * specifications has a domain member; `info` is open, so a document that names one says it there.
 */
export function infoFacts(doc: Record<string, unknown>) {
  const info = isRecord(doc.info) ? doc.info : {};
  return {
    title: str(info.title) ?? String(doc.id),
    ...infoOwnership(doc),
    version: str(info.version),
    status: str(info.status),
    description: str(info.description),
    domain: str(info.domain),
  };
}

/** The Data Contract Specification's deprecated spellings of two comparisons, and what they mean. */
/** Comparison operators older formats spelled out, by the name ODCS gives them. */
export const DEPRECATED_OPERATORS: Record<string, string> = { mustBeGreaterThanOrEqualTo: "mustBeGreaterOrEqualTo", mustBeLessThanOrEqualTo: "mustBeLessOrEqualTo" };

/** Quality rules as ODCS and DCS 1.x write them (`type` text, library, sql or custom), normalized. */
export function qualityRules(value: unknown): QualityRule[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.filter(isRecord).map((q) => {
    const type = (str(q.type) ?? (q.metric !== undefined || q.rule !== undefined ? "library" : "text")) as QualityRule["type"];
    const rule: QualityRule = { type };
    for (const key of ["name", "description", "dimension", "severity", "query", "engine"] as const) if (str(q[key]) !== undefined) rule[key] = str(q[key]);
    const metric = str(q.metric) ?? str(q.rule);
    if (metric !== undefined) rule.metric = metric;
    if (isRecord(q.arguments)) rule.arguments = q.arguments;
    if (q.implementation !== undefined) rule.implementation = q.implementation;
    const spelled = Object.keys(q).find((key) => (QUALITY_OPERATORS as readonly string[]).includes(key) || DEPRECATED_OPERATORS[key] !== undefined);
    if (spelled !== undefined) rule.comparison = { operator: DEPRECATED_OPERATORS[spelled] ?? spelled, value: q[spelled] };
    // What no member above holds (a second comparison, `unit`, a SQL `dialect`, an engine's
    // `specification`…) stays with the rule, so a conversion can carry it on.
    const held = new Set(["type", ...Object.keys(rule).filter((key) => key !== "metric" && key !== "comparison"), spelled]);
    held.add(str(q.metric) !== undefined ? "metric" : "rule");
    const extra = Object.fromEntries(Object.entries(q).filter(([key]) => !held.has(key)));
    if (Object.keys(extra).length > 0) rule.extra = extra;
    return rule;
  });
}
