/**
 * Making what another format (or an older edition) says fit ODCS 3.1.0 without losing it: a
 * member 3.1 has no place for moves to the object's `customProperties`, or, where the object has
 * none, to the nearest enclosing object's, named by its path. Quality rules are mapped to the 3.1
 * rule that means the same, or kept as a `text` rule with their members when 3.1 has none.
 */
import { Kind, type TSchema } from "@sinclair/typebox";
import { isRecord } from "../schema-formats/text.js";
import { DEPRECATED_OPERATORS, str } from "./members.js";
import { ODCS_3_1 } from "./odcs-editions.js";
import { misfit, qualityKindsOf } from "./odcs-rules.js";
import { objectIn, objectsOf, odcsDocumentSchema, OPERATORS, QUALITY_METRICS, QUALITY_OPERATORS, type OdcsObject } from "./odcs-shapes.js";

type Json = Record<string, unknown>;
/** Members that found no place, by their path from the object that gives them back. */
type Spill = Array<[string, unknown]>;

const OBJECTS = objectsOf(ODCS_3_1);
const members = (kind: OdcsObject) => objectIn(ODCS_3_1, kind, OBJECTS[kind]);

/** The object a member holds, directly or as a list, when its schema refers to one. */
function heldObject(schema: TSchema): { kind: OdcsObject; list: boolean } | undefined {
  const s = schema as { $ref?: string; items?: { $ref?: string } };
  const ref = s.$ref ?? s.items?.$ref;
  return ref === undefined ? undefined : { kind: ref.replace("#/$defs/", "") as OdcsObject, list: s.$ref === undefined };
}

const join = (prefix: string, path: string) => (path === "" ? prefix : path.startsWith("[") ? `${prefix}${path}` : `${prefix}.${path}`);

/** What a required member may stand for when a looser format left it out. */
const STAND_INS: Partial<Record<OdcsObject, (node: Json) => Json>> = {
  CustomProperty: (node) => ({ property: "", value: null, ...node }),
  TeamMember: (node) => ({ username: str(node.name) ?? "", ...node }),
};

/** Members the object may have beside its own: a server's by its type, a rule's by its type. */
function extraMembers(kind: OdcsObject, node: Json): Record<string, TSchema> {
  if (kind === "Server") return ODCS_3_1.serverTypes[node.type as string]?.[0] ?? {};
  if (kind === "DataQuality") return Object.assign({}, ...qualityKindsOf(node, ODCS_3_1).map(([, k]) => k.members));
  return {};
}

function fitMember(key: string, value: unknown, schema: TSchema, out: Json, spill: Spill, options: QualityOptions): void {
  const held = heldObject(schema);
  if (!held) {
    // References (relationships) are 3.1 members no other format has: what reaches here was validated as 3.1.
    if (schema[Kind] === "Unsafe" || misfit(schema, value) === undefined) out[key] = value;
    else spill.push([key, value]);
    return;
  }
  if (!held.list) {
    const fitted = fitObject(value, held.kind, options);
    if (fitted.value !== undefined) out[key] = fitted.value;
    spill.push(...fitted.spill.map(([path, v]): [string, unknown] => [join(key, path), v]));
    return;
  }
  if (!Array.isArray(value)) return void spill.push([key, value]);
  const items: unknown[] = [];
  value.forEach((item, i) => {
    for (const fitted of held.kind === "DataQuality" ? fitQuality(item, options) : [fitObject(item, held.kind, options)]) {
      if (fitted.value !== undefined) items.push(fitted.value);
      spill.push(...fitted.spill.map(([path, v]): [string, unknown] => [join(`${key}[${i}]`, path), v]));
    }
  });
  out[key] = items;
}

/** Gives spilled members a home in the object's own customProperties, when it has them. */
function settle(out: Json, spill: Spill, hasCustom: boolean): { value: Json; spill: Spill } {
  if (!hasCustom || spill.length === 0) return { value: out, spill };
  const kept = Array.isArray(out.customProperties) ? out.customProperties : [];
  return { value: { ...out, customProperties: [...kept, ...spill.map(([property, value]) => ({ property, value }))] }, spill: [] };
}

export function fitObject(node: unknown, kind: OdcsObject, options: QualityOptions = {}): { value?: Json; spill: Spill } {
  if (!isRecord(node)) return { spill: [["", node]] };
  const own = members(kind);
  const withStandIns = STAND_INS[kind]?.(node) ?? node;
  if (own.required.some((name) => withStandIns[name] === undefined)) return { spill: [["", node]] };
  const adapted = kind === "SchemaProperty" || kind === "SchemaItemProperty" ? adaptProperty(withStandIns, kind) : { node: withStandIns, spill: [] };
  const allowed = { ...own.members, ...extraMembers(kind, adapted.node) };
  const out: Json = {};
  const spill: Spill = [...adapted.spill];
  for (const [key, value] of Object.entries(adapted.node)) {
    const schema = allowed[key];
    if (schema) fitMember(key, value, schema, out, spill, options);
    else spill.push([key, value]);
  }
  return settle(out, spill, "customProperties" in own.members);
}

/**
 * 3.0 wrote exclusive bounds as flags beside `minimum`/`maximum`; 3.1 names the bound itself.
 * Options 3.1 has not for the property's type, and nested properties of a non-object item, move out.
 */
function adaptProperty(node: Json, kind: OdcsObject): { node: Json; spill: Spill } {
  const spill: Spill = [];
  const out = { ...node };
  if (kind === "SchemaItemProperty" && out.properties !== undefined && out.logicalType !== undefined && out.logicalType !== "object") {
    spill.push(["logicalType", out.logicalType]);
    delete out.logicalType;
  }
  if (!isRecord(out.logicalTypeOptions)) return { node: out, spill };
  const options: Json = { ...out.logicalTypeOptions };
  for (const [flag, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (options[flag] === true && options[bound] !== undefined) [options[flag], options[bound]] = [options[bound], undefined];
    else if (typeof options[flag] === "boolean") options[flag] = undefined;
  }
  const known = out.logicalType === undefined ? {} : (ODCS_3_1.typeOptions.find(([types]) => types.includes(out.logicalType as string))?.[1] ?? null);
  const kept: Json = {};
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const schema = known === null ? undefined : known[name];
    if (known === null || (schema && misfit(schema, value) === undefined)) kept[name] = value;
    else spill.push([`logicalTypeOptions.${name}`, value]);
  }
  out.logicalTypeOptions = kept;
  return { node: out, spill };
}

/** 3.0 named library checks; 3.1 names metrics. */
const LEGACY_RULES: Record<string, string> = { nullCheck: "nullValues", duplicateCount: "duplicateValues", rowCount: "rowCount", validValues: "invalidValues" };
/** Engines named as a rule type by older formats (`type: SodaCL`), by the name ODCS examples use. */
const ENGINES: Record<string, string> = { sodacl: "soda", soda: "soda", "great-expectations": "great-expectations", montecarlo: "monte-carlo", "monte-carlo": "monte-carlo" };
const TYPES = new Set(["text", "library", "sql", "custom"]);

export interface QualityOptions {
  /** A 3.0 rule named a check and needed no comparison: "no offending rows", or "some rows" for a row count. */
  legacyDefaults?: boolean;
}

/**
 * One quality rule of ODCS 3.0, the Data Contract Specification or a normalized model, as the
 * ODCS 3.1 rules that mean the same: one per comparison (3.1 states one per rule), or a `text`
 * rule keeping every member when 3.1 cannot state it.
 */
export function fitQuality(raw: unknown, options: QualityOptions = {}): Array<{ value?: Json; spill: Spill }> {
  if (!isRecord(raw)) return [{ spill: [["", raw]] }];
  return qualityRulesFor(raw, options).map((rule) => fitObject(rule, "DataQuality", options));
}

function qualityRulesFor(raw: Json, options: QualityOptions): Json[] {
  const rule: Json = {};
  for (const [key, value] of Object.entries(raw)) {
    const operator = DEPRECATED_OPERATORS[key];
    if (operator !== undefined && raw[operator] === undefined) rule[operator] = value;
    else rule[key] = value;
  }
  const declared = str(rule.type);
  if (declared !== undefined && !TYPES.has(declared)) {
    // An engine's own check: its specification is the implementation.
    const { type: _t, specification, implementation, ...rest } = rule;
    return [{ ...rest, type: "custom", engine: ENGINES[declared.toLowerCase()] ?? declared, implementation: implementationOf(specification ?? implementation) }];
  }
  const type = declared ?? (rule.metric !== undefined || rule.rule !== undefined ? "library" : "text");
  if (type === "text") return [asText(rule, type)];
  if (type === "custom") return typeof rule.engine === "string" ? [{ ...rule, implementation: implementationOf(rule.implementation) }] : [asText(rule, type)];
  const head: Json = { ...rule, type };
  if (type === "library") {
    // A rule named the 3.0 way, by `rule` (or, in a normalized rule, by `metric`), names a 3.1 metric.
    const named = (QUALITY_METRICS as readonly unknown[]).includes(rule.metric) ? undefined : rule.metric ?? rule.rule;
    const legacy = typeof named === "string" ? LEGACY_RULES[named] : undefined;
    const metric = named === undefined ? rule.metric : legacy;
    if (metric === undefined) return [asText(rule, type)];
    head.metric = metric;
    if (named === rule.rule) delete head.rule;
  } else if (typeof rule.query !== "string") return [asText(rule, type)];
  const comparisons = QUALITY_OPERATORS.filter((op) => rule[op] !== undefined && misfit(OPERATORS[op]!, rule[op]) === undefined);
  for (const op of comparisons) delete head[op];
  if (comparisons.length === 0) {
    if (!options.legacyDefaults || type !== "library") return [asText(rule, type)];
    return [{ ...head, ...(head.metric === "rowCount" ? { mustBeGreaterThan: 0 } : { mustBe: 0 }) }];
  }
  return comparisons.map((op) => ({ ...head, [op]: rule[op] }));
}

/** ODCS takes an implementation as text or an object; a list (a Great Expectations suite) is kept as its JSON text. */
function implementationOf(value: unknown): unknown {
  if (typeof value === "string" || isRecord(value)) return value;
  return value === undefined ? "" : JSON.stringify(value);
}

const COMMON = new Set(Object.keys(members("DataQuality").members));

/** A rule ODCS 3.1 cannot state: prose, with the members that stated it kept beside. */
function asText(rule: Json, type: string): Json {
  const kept = Object.fromEntries(Object.entries(rule).filter(([key]) => COMMON.has(key) && key !== "type"));
  const stated = Object.entries(rule).filter(([key]) => !COMMON.has(key) || key === "type");
  const what = str(rule.rule) ?? str(rule.metric) ?? str(rule.query) ?? str(rule.name);
  const description = str(rule.description) ?? (type === "text" ? undefined : `A ${type} check${what ? ` (${what})` : ""} that ODCS 3.1 has no form for.`);
  const custom = Array.isArray(kept.customProperties) ? kept.customProperties : [];
  const moved = type === "text" ? stated.filter(([key]) => key !== "type") : stated;
  return {
    ...kept,
    type: "text",
    ...(description === undefined ? {} : { description }),
    ...(moved.length > 0 || custom.length > 0 ? { customProperties: [...custom, ...moved.map(([property, value]) => ({ property, value }))] } : {}),
  };
}

const CONTRACT = (odcsDocumentSchema(ODCS_3_1, ODCS_3_1.apiVersions) as { properties: Record<string, TSchema> }).properties;
const DESCRIPTION = (CONTRACT.description as unknown as { properties: Record<string, TSchema> }).properties;
const TEAM = { $ref: "#/$defs/Team" } as unknown as TSchema;

/**
 * A 3.0.x contract as 3.1.0: the team list becomes the team object's members, 3.0's library rules
 * name metrics, and members of the objects 3.0 left open move to customProperties.
 */
export function fitContract(doc: Json): Json {
  const out: Json = {};
  const spill: Spill = [];
  const options = { legacyDefaults: true };
  for (const [key, value] of Object.entries(doc)) {
    if (key === "apiVersion") continue;
    if (key === "team") fitMember(key, Array.isArray(value) ? { members: value } : value, TEAM, out, spill, options);
    else if (key === "description" && isRecord(value)) out.description = fitDescription(value);
    else if (CONTRACT[key] !== undefined) fitMember(key, value, CONTRACT[key], out, spill, options);
    else spill.push([key, value]);
  }
  return { ...settle(out, spill, true).value, apiVersion: ODCS_3_1.apiVersions[0] };
}

/** The open description object: only its lists are the standard's objects. */
function fitDescription(description: Json): Json {
  const out: Json = {};
  const spill: Spill = [];
  for (const [key, value] of Object.entries(description)) {
    if (key === "authoritativeDefinitions" || key === "customProperties") fitMember(key, value, DESCRIPTION[key]!, out, spill, {});
    else out[key] = value;
  }
  return settle(out, spill, true).value;
}
