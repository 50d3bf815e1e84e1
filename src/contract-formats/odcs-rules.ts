/**
 * The ODCS rules that depend on another member's value, checked from tables: which members a
 * server has by its `type`, a quality rule by its `type`, and `logicalTypeOptions` by the
 * property's `logicalType`.
 */
import type { FieldViolation } from "../platform/errors.js";
import { renderPath, type Segment } from "../platform/paths.js";
import { isRecord } from "../schema-formats/text.js";
import { Value } from "@sinclair/typebox/value";
import { QUALITY_OPERATORS, SERVER_TYPES, TYPE_OPTIONS } from "./odcs-shapes.js";

const NOT_ALLOWED = "is not a member the standard allows here (extensions belong in customProperties)";
const SERVER_BASE = new Set(["id", "server", "type", "description", "environment", "roles", "customProperties"]);

/** Members per quality type beyond the common ones, and what each type requires. */
const QUALITY_TYPES: Record<string, { members: string[]; required: string[]; comparison: boolean }> = {
  text: { members: [], required: [], comparison: false },
  library: { members: ["metric", "rule", "arguments"], required: ["metric"], comparison: true },
  sql: { members: ["query"], required: ["query"], comparison: true },
  custom: { members: ["engine", "implementation"], required: ["engine", "implementation"], comparison: false },
};
const QUALITY_SPECIFIC = new Set(["metric", "rule", "arguments", "query", "engine", "implementation", ...QUALITY_OPERATORS]);

function fits(schema: Record<string, unknown>, value: unknown): string | undefined {
  if (schema.type === "integer") return Number.isInteger(value) ? undefined : "must be integer";
  if (typeof value !== "string") return "must be string";
  if (schema.format === "uri" && !URL.canParse(value)) return "must be a valid uri";
  if (typeof schema.pattern === "string" && !new RegExp(schema.pattern).test(value)) return `must match pattern "${schema.pattern}"`;
  return undefined;
}

function serverViolations(server: unknown, path: Segment[], out: FieldViolation[]): void {
  if (!isRecord(server) || typeof server.type !== "string" || !SERVER_TYPES[server.type]) return;
  const [members, required] = SERVER_TYPES[server.type]!;
  for (const name of required) if (server[name] === undefined) out.push({ field: renderPath("", [...path, name]), message: `is required for a ${server.type} server` });
  for (const [name, value] of Object.entries(server)) {
    if (SERVER_BASE.has(name)) continue;
    const schema = members[name] as Record<string, unknown> | undefined;
    const problem = schema ? fits(schema, value) : NOT_ALLOWED;
    if (problem) out.push({ field: renderPath("", [...path, name]), message: problem });
  }
}

function qualityViolations(rule: unknown, path: Segment[], legacy: boolean, out: FieldViolation[]): void {
  if (!isRecord(rule)) return;
  // The standard's default type is library, but only a rule that names a metric (or 3.0 rule) is held to it.
  const type = typeof rule.type === "string" ? rule.type : rule.metric !== undefined || (legacy && rule.rule !== undefined) ? "library" : undefined;
  const spec = type === undefined ? undefined : QUALITY_TYPES[type];
  const allowed = new Set([...(spec?.members ?? []), ...(spec?.comparison ? QUALITY_OPERATORS : [])]);
  for (const name of Object.keys(rule)) {
    if (QUALITY_SPECIFIC.has(name) && !allowed.has(name)) out.push({ field: renderPath("", [...path, name]), message: `is not a member of a ${type ?? "text"} quality rule` });
  }
  if (!spec) return;
  for (const name of spec.required) {
    if (rule[name] !== undefined) continue;
    if (legacy && name === "metric" && rule.rule !== undefined) continue;
    out.push({ field: renderPath("", [...path, name]), message: `is required for a ${type} quality rule` });
  }
  // 3.0 rules named their check and needed no comparison; 3.1 rules have exactly one.
  if (spec.comparison && !legacy && QUALITY_OPERATORS.filter((op) => rule[op] !== undefined).length !== 1) {
    out.push({ field: renderPath("", path), message: `must have exactly one comparison: ${QUALITY_OPERATORS.join(", ")}` });
  }
}

function optionViolations(property: Record<string, unknown>, path: Segment[], out: FieldViolation[]): void {
  const options = property.logicalTypeOptions;
  if (!isRecord(options) || typeof property.logicalType !== "string") return;
  const members = TYPE_OPTIONS.find(([types]) => types.includes(property.logicalType as string))?.[1];
  if (!members) return;
  for (const [name, value] of Object.entries(options)) {
    const schema = members[name];
    const field = renderPath("", [...path, "logicalTypeOptions", name]);
    if (!schema) out.push({ field, message: `is not an option of logicalType ${property.logicalType}` });
    else if (!Value.Check(schema, value)) out.push({ field, message: `is not a valid ${name} option (${describe(schema)})` });
  }
}

function describe(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.anyOf)) return `one of ${(schema.anyOf as Array<{ const: unknown }>).map((s) => s.const).join(", ")}`;
  const bounds = schema.minimum !== undefined ? ` of at least ${schema.minimum}` : schema.exclusiveMinimum !== undefined ? ` above ${schema.exclusiveMinimum}` : "";
  return `${schema.type === "array" ? "a list" : `a ${schema.type}`}${bounds}`;
}

/** Walks servers, schema objects, their properties (nested, items) and quality rules. */
export function conditionalViolations(doc: Record<string, unknown>, legacy: boolean): FieldViolation[] {
  const out: FieldViolation[] = [];
  if (Array.isArray(doc.servers)) doc.servers.forEach((s, i) => serverViolations(s, ["servers", i], out));
  const quality = (node: Record<string, unknown>, path: Segment[]) => {
    if (Array.isArray(node.quality)) node.quality.forEach((q, i) => qualityViolations(q, [...path, "quality", i], legacy, out));
  };
  const property = (node: unknown, path: Segment[], depth: number) => {
    if (!isRecord(node) || depth > 256) return;
    quality(node, path);
    const logical = node.logicalType;
    optionViolations(node, path, out);
    if (node.properties !== undefined && logical !== undefined && logical !== "object") {
      out.push({ field: renderPath("", [...path, "properties"]), message: "nested properties need logicalType object" });
    }
    if (node.items !== undefined && logical !== undefined && logical !== "array") {
      out.push({ field: renderPath("", [...path, "items"]), message: "items need logicalType array" });
    }
    if (Array.isArray(node.properties)) node.properties.forEach((p, i) => property(p, [...path, "properties", i], depth + 1));
    if (node.items !== undefined) property(node.items, [...path, "items"], depth + 1);
  };
  if (Array.isArray(doc.schema)) {
    doc.schema.forEach((object, i) => {
      if (!isRecord(object)) return;
      quality(object, ["schema", i]);
      if (Array.isArray(object.properties)) object.properties.forEach((p, j) => property(p, ["schema", i, "properties", j], 0));
    });
  }
  return out;
}
