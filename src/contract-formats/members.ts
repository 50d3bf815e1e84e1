/** Reading members of documents whose shape is only known to be valid, not typed. */
import { isRecord } from "../schema-formats/text.js";
import type { QualityRule } from "../schema-formats/types.js";
import { QUALITY_OPERATORS } from "./odcs-shapes.js";

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
    owner: str(info.owner),
    ownerField: "info.owner",
    version: str(info.version),
    status: str(info.status),
    description: str(info.description),
    domain: str(info.domain),
  };
}

/** The standards' `customProperties: [{property, value}]`: the named one and its index. */
export function customProperty(list: unknown, name: string): { value: unknown; index: number } | undefined {
  if (!Array.isArray(list)) return undefined;
  const index = list.findIndex((p) => isRecord(p) && p.property === name);
  return index === -1 ? undefined : { value: (list[index] as Record<string, unknown>).value, index };
}

/** Quality rules as ODCS and DCS 1.x write them (`type` text, library, sql or custom), normalized. */
export function qualityRules(value: unknown): QualityRule[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.filter(isRecord).map((q) => {
    const type = (str(q.type) ?? (q.metric !== undefined || q.rule !== undefined ? "library" : "text")) as QualityRule["type"];
    const rule: QualityRule = { type };
    for (const key of ["name", "description", "dimension", "severity", "query", "engine"] as const) if (str(q[key]) !== undefined) rule[key] = str(q[key]);
    if (str(q.metric ?? q.rule) !== undefined) rule.metric = str(q.metric ?? q.rule);
    if (isRecord(q.arguments)) rule.arguments = q.arguments;
    if (q.implementation !== undefined) rule.implementation = q.implementation;
    const operator = QUALITY_OPERATORS.find((op) => q[op] !== undefined);
    if (operator) rule.comparison = { operator, value: q[operator] };
    return rule;
  });
}
