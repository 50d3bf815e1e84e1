/**
 * The ODCS rules that depend on another member's value, checked from tables: which members a
 * server has by its `type`, a quality rule by its `type`, and `logicalTypeOptions` by the
 * property's `logicalType`.
 */
import type { FieldViolation } from "../platform/errors.js";
import { renderPath, type Segment } from "../platform/paths.js";
import { isRecord } from "../schema-formats/text.js";
import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import type { OdcsEdition } from "./odcs-editions.js";
import { objectIn, objectsOf, QUALITY_OPERATORS, type QualityKind } from "./odcs-shapes.js";

const NOT_ALLOWED = "is not a member the standard allows here (extensions belong in customProperties)";

/** Whether a value fits a member's schema; the reason when it does not. */
export function misfit(schema: TSchema, value: unknown): string | undefined {
  const s = schema as Record<string, unknown>;
  if (s.format === "uri" && typeof value === "string" && !URL.canParse(value)) return "must be a valid uri";
  if (s.format === "uri" || s.format === "date") {
    const { format: _f, ...plain } = s;
    return Value.Check(plain as TSchema, value) ? undefined : `must be ${describe(s)}`;
  }
  return Value.Check(schema, value) ? undefined : `must be ${describe(s)}`;
}

function serverViolations(server: unknown, path: Segment[], edition: OdcsEdition, base: ReadonlySet<string>, out: FieldViolation[]): void {
  if (!isRecord(server) || typeof server.type !== "string" || !edition.serverTypes[server.type]) return;
  const [members, required] = edition.serverTypes[server.type]!;
  const closed = !edition.open.includes("Server");
  for (const name of required) if (server[name] === undefined) out.push({ field: renderPath("", [...path, name]), message: `is required for a ${server.type} server` });
  for (const [name, value] of Object.entries(server)) {
    if (base.has(name)) continue;
    const schema = members[name];
    const problem = schema ? misfit(schema, value) : closed ? NOT_ALLOWED : undefined;
    if (problem) out.push({ field: renderPath("", [...path, name]), message: problem });
  }
}

/** The rule types whose requirements a quality rule is held to (more than one when it names a metric beside another type). */
export function qualityKindsOf(rule: Record<string, unknown>, edition: OdcsEdition): Array<[string, QualityKind]> {
  const { kinds, untypedIsLibrary, metricMakesLibrary } = edition.quality;
  const library = rule.type === "library" || (rule.type === undefined && untypedIsLibrary) || (metricMakesLibrary && typeof rule.metric === "string");
  return Object.entries(kinds).filter(([type]) => (type === "library" ? library : rule.type === type));
}

function qualityViolations(rule: unknown, path: Segment[], edition: OdcsEdition, base: ReadonlySet<string>, out: FieldViolation[]): void {
  if (!isRecord(rule)) return;
  const kinds = qualityKindsOf(rule, edition);
  const members: Record<string, TSchema> = Object.assign({}, ...kinds.map(([, kind]) => kind.members));
  const closed = !edition.open.includes("DataQuality");
  const type = typeof rule.type === "string" ? rule.type : kinds.length > 0 ? "library" : "text";
  for (const [name, value] of Object.entries(rule)) {
    if (base.has(name)) continue;
    const schema = members[name];
    const problem = schema ? misfit(schema, value) : closed ? `is not a member of a ${type} quality rule` : undefined;
    if (problem) out.push({ field: renderPath("", [...path, name]), message: problem });
  }
  for (const [kindType, kind] of kinds) {
    for (const name of kind.required) {
      if (rule[name] !== undefined) continue;
      const why = rule.type === undefined && kindType === "library" ? " (a rule that names no type is one)" : "";
      out.push({ field: renderPath("", [...path, name]), message: `is required for a ${kindType} quality rule${why}` });
    }
  }
  if (kinds.some(([, kind]) => kind.oneComparison) && QUALITY_OPERATORS.filter((op) => rule[op] !== undefined).length !== 1) {
    out.push({ field: renderPath("", path), message: `must have exactly one comparison: ${QUALITY_OPERATORS.join(", ")}` });
  }
}

function optionViolations(property: Record<string, unknown>, path: Segment[], edition: OdcsEdition, out: FieldViolation[]): void {
  const options = property.logicalTypeOptions;
  if (!isRecord(options)) return;
  // Without a logicalType the standard holds the options to every type's list at once, which no option is on.
  if (property.logicalType === undefined) {
    for (const name of Object.keys(options)) out.push({ field: renderPath("", [...path, "logicalTypeOptions", name]), message: "is an option of no logicalType: name the property's logicalType" });
    return;
  }
  const members = edition.typeOptions.find(([types]) => types.includes(property.logicalType as string))?.[1];
  if (!members) return;
  for (const name of edition.requiredOptions?.[property.logicalType as string] ?? []) {
    if (options[name] === undefined) out.push({ field: renderPath("", [...path, "logicalTypeOptions", name]), message: `is required for logicalType ${property.logicalType}` });
  }
  for (const [name, value] of Object.entries(options)) {
    const schema = members[name];
    const field = renderPath("", [...path, "logicalTypeOptions", name]);
    if (!schema) out.push({ field, message: `is not an option of logicalType ${property.logicalType}` });
    else if (!Value.Check(schema, value)) out.push({ field, message: `is not a valid ${name} option (${describe(schema as Record<string, unknown>)})` });
  }
}

function describe(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.anyOf)) {
    const alternatives = schema.anyOf as Array<Record<string, unknown>>;
    return alternatives.every((s) => s.const !== undefined) ? `one of ${alternatives.map((s) => s.const).join(", ")}` : alternatives.map(describe).join(" or ");
  }
  const bounds = schema.minimum !== undefined ? ` of at least ${schema.minimum}` : schema.exclusiveMinimum !== undefined ? ` above ${schema.exclusiveMinimum}` : "";
  const pattern = typeof schema.pattern === "string" ? ` matching ${schema.pattern}` : "";
  const list = schema.minItems === 2 && schema.maxItems === 2 ? "a list of two different numbers" : "a list";
  const type = schema.type === "array" ? list : `a${/^[aeiou]/.test(String(schema.type)) ? "n" : ""} ${schema.type}`;
  return `${type}${bounds}${pattern}`;
}

/** The same value written with its members in any order. */
function canonical(value: unknown, depth = 0): string {
  if (depth > 256 || value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(",")}]`;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v, depth + 1)}`).join(",")}}`;
}

/** Entries of a list that must differ, found with one pass (a schema's uniqueItems compares every pair). */
function duplicateViolations(list: unknown[], path: Segment[], out: FieldViolation[]): void {
  const seen = new Map<string, number>();
  list.forEach((entry, i) => {
    const key = canonical(entry);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else out.push({ field: renderPath("", [...path, i]), message: `repeats entry ${first}: the entries must differ` });
  });
}

/**
 * `map` belongs to logicalType map, which requires it. The edition's schema applies that
 * requirement also when a property names no logicalType, so such a property is asked to name one.
 */
function mapViolations(node: Record<string, unknown>, path: Segment[], out: FieldViolation[]): void {
  const logical = node.logicalType;
  const field = renderPath("", [...path, "map"]);
  if (node.map !== undefined && logical !== undefined && logical !== "map") out.push({ field, message: "map needs logicalType map" });
  else if (node.map === undefined && logical === "map") out.push({ field, message: "is required for logicalType map (its key and value)" });
  else if (node.map === undefined && logical === undefined) {
    out.push({ field: renderPath("", [...path, "logicalType"]), message: "is required in ODCS v3.2.0 (the standard's schema asks a property without logicalType for a map)" });
  }
}

/** Walks servers, schema objects, their properties (nested, items) and quality rules. */
export function conditionalViolations(doc: Record<string, unknown>, edition: OdcsEdition): FieldViolation[] {
  const out: FieldViolation[] = [];
  const objects = objectsOf(edition);
  const serverBase = new Set(Object.keys(objectIn(edition, "Server", objects.Server).members));
  const qualityBase = new Set(Object.keys(objectIn(edition, "DataQuality", objects.DataQuality).members));
  if (Array.isArray(doc.servers)) doc.servers.forEach((s, i) => serverViolations(s, ["servers", i], edition, serverBase, out));
  const quality = (node: Record<string, unknown>, path: Segment[]) => {
    if (Array.isArray(node.quality)) node.quality.forEach((q, i) => qualityViolations(q, [...path, "quality", i], edition, qualityBase, out));
  };
  const property = (node: unknown, path: Segment[], depth: number, item = false) => {
    if (!isRecord(node) || depth > 256) return;
    quality(node, path);
    const logical = node.logicalType;
    optionViolations(node, path, edition, out);
    if (node.properties !== undefined && logical !== undefined && logical !== "object" && !(item && edition.itemPropertiesOfAnyType)) {
      out.push({ field: renderPath("", [...path, "properties"]), message: "nested properties need logicalType object" });
    }
    if (node.items !== undefined && logical !== undefined && logical !== "array") {
      out.push({ field: renderPath("", [...path, "items"]), message: "items need logicalType array" });
    }
    if (edition.maps) mapViolations(node, path, out);
    if (Array.isArray(node.enum)) duplicateViolations(node.enum, [...path, "enum"], out);
    if (Array.isArray(node.properties)) node.properties.forEach((p, i) => property(p, [...path, "properties", i], depth + 1));
    if (node.items !== undefined) property(node.items, [...path, "items"], depth + 1, true);
    if (isRecord(node.map)) for (const part of ["key", "value"]) if (node.map[part] !== undefined) property(node.map[part], [...path, "map", part], depth + 1, true);
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
