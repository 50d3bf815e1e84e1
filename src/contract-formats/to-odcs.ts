/**
 * Building ODCS v3.1.0 from what the other formats carry: normalized models become `schema[]`
 * objects, Data Contract Specification servers become ODCS servers, and what ODCS has no member
 * for is kept in `customProperties` rather than dropped.
 */
import type { NormalizedField, NormalizedModel, QualityRule } from "../schema-formats/types.js";
import { isRecord } from "../schema-formats/text.js";
import { str } from "./members.js";
import { fitQuality } from "./odcs-fit.js";
import { SERVER_TYPES } from "./odcs-shapes.js";
import { createAjv } from "../platform/validation.js";

type Json = Record<string, unknown>;

const LOGICAL: Partial<Record<NormalizedField["type"], string>> = {
  string: "string", integer: "integer", number: "number", boolean: "boolean", date: "date", time: "time", timestamp: "timestamp",
  bytes: "string", object: "object", array: "array", map: "object", enum: "string", geography: "string", interval: "string", range: "object",
};

export function customProperties(entries: Array<[string, unknown]>): Json[] {
  return entries.filter(([, value]) => value !== undefined).map(([property, value]) => ({ property, value }));
}

/** A normalized quality rule as it was written, for fitQuality to map to ODCS 3.1. */
function writtenRule(rule: QualityRule): Json {
  const { comparison, extra, metric, ...rest } = rule;
  return { ...rest, ...(metric === undefined ? {} : { metric }), ...(comparison ? { [comparison.operator]: comparison.value } : {}), ...extra };
}

/** Normalized rules as ODCS 3.1 rules; what 3.1 has no place for is handed to the enclosing element, by path. */
function qualityToOdcs(rules: QualityRule[] | undefined, spill: Array<[string, unknown]>): Json[] {
  return (rules ?? []).flatMap((rule, i) =>
    fitQuality(writtenRule(rule)).flatMap(({ value, spill: rest }) => {
      spill.push(...rest.map(([path, v]): [string, unknown] => [`quality[${i}]${path === "" ? "" : `.${path}`}`, v]));
      return value === undefined ? [] : [value];
    }),
  );
}

/** dbt tests beside not_null and unique have no ODCS member: they stay checks of the dbt engine. */
function testsToQuality(tests: string[] | undefined): Json[] {
  return (tests ?? []).filter((t) => t !== "not_null" && t !== "unique").map((t) => ({ type: "custom", engine: "dbt", implementation: t }));
}

function valuesRule(values: unknown[]): Json {
  return { type: "library", metric: "invalidValues", arguments: { validValues: values }, mustBe: 0 };
}

export function fieldToProperty(field: NormalizedField, named = true): Json {
  const logicalType = LOGICAL[field.type];
  const out: Json = named ? { name: field.name } : {};
  if (logicalType) out.logicalType = logicalType;
  if (field.physicalType !== "") out.physicalType = field.physicalType;
  if (field.required) out.required = true;
  if (field.description !== undefined) out.description = field.description;
  if (field.primaryKey) out.primaryKey = true;
  if (field.unique || field.tests?.includes("unique")) out.unique = true;
  if (field.classification !== undefined) out.classification = field.classification;
  if (logicalType === "string") {
    const options = Object.fromEntries(
      (["minLength", "maxLength", "pattern"] as const).filter((k) => field[k] !== undefined).map((k) => [k, field[k]]),
    );
    if (Object.keys(options).length > 0) out.logicalTypeOptions = options;
  }
  if (logicalType === "object" && field.fields) out.properties = field.fields.map((f) => fieldToProperty(f));
  if (logicalType === "array" && field.items) out.items = fieldToProperty(field.items, false);
  const spilled: Array<[string, unknown]> = [];
  const quality = [
    ...qualityToOdcs(field.quality, spilled),
    ...testsToQuality(field.tests),
    ...(field.symbols ? [valuesRule(field.symbols)] : []),
    ...(field.enum ? [valuesRule(field.enum)] : []),
  ];
  if (quality.length > 0) out.quality = quality;
  const extra = customProperties([
    ["precision", field.precision],
    ["scale", field.scale],
    ...(logicalType === "string" ? [] : ([["minLength", field.minLength], ["maxLength", field.maxLength], ["pattern", field.pattern]] as Array<[string, unknown]>)),
    ...spilled,
  ]);
  if (extra.length > 0) out.customProperties = extra;
  return out;
}

/** One normalized model as an ODCS schema object; `source` names the typed schema it came from. */
export function modelToSchemaObject(model: NormalizedModel, source?: string): Json {
  const out: Json = { name: model.name, logicalType: "object", physicalType: model.kind };
  if (model.description !== undefined) out.description = model.description;
  out.properties = model.fields.map((f) => fieldToProperty(f));
  const spilled: Array<[string, unknown]> = [];
  const quality = [...qualityToOdcs(model.quality, spilled), ...testsToQuality(model.tests)];
  if (quality.length > 0) out.quality = quality;
  const custom = customProperties([["schemaType", source], ...spilled]);
  if (custom.length > 0) out.customProperties = custom;
  return out;
}

/**
 * A URI as the ODCS schema (and Steward's validation of it) reads `format: uri`, RFC 3986: WHATWG
 * URL parsing is laxer and takes `s3://bucket/{model}/*.json`, which a DCS location may hold.
 */
let uriCheck: ((value: string) => boolean) | undefined;
const isUri = (value: string) => (uriCheck ??= createAjv().compile({ type: "string", format: "uri" }) as (value: string) => boolean)(value);

function fits(schema: Json, value: unknown): boolean {
  if (schema.type === "integer") return Number.isInteger(value);
  if (schema.type !== "string" || typeof value !== "string") return false;
  if (schema.format === "uri" && !isUri(value)) return false;
  return typeof schema.pattern !== "string" || new RegExp(schema.pattern).test(value);
}

const SERVER_BASE = new Set(["description", "environment"]);

/**
 * A server of the Data Contract Specification (`servers: {name: {type, …}}`) as an ODCS server.
 * Members the ODCS server type does not have move to customProperties; a server that lacks what
 * its ODCS type requires becomes a `custom` server, which requires nothing.
 */
export function serverToOdcs(name: string, server: unknown): Json {
  const s = isRecord(server) ? server : {};
  const declared = String(s.type ?? "custom").toLowerCase();
  const attempt = (type: string): Json | undefined => {
    const [members, required] = SERVER_TYPES[type] ?? SERVER_TYPES.custom!;
    const out: Json = { server: name, type };
    const extra: Array<[string, unknown]> = [];
    for (const [key, value] of Object.entries(s)) {
      if (key === "type") continue;
      const schema = members[key] as Json | undefined;
      if (schema && fits(schema, value)) out[key] = value;
      else if (SERVER_BASE.has(key) && typeof value === "string") out[key] = value;
      else extra.push([key, value]);
    }
    if (required.some((r) => out[r] === undefined)) return undefined;
    if (type !== declared) extra.unshift(["type", s.type]);
    if (extra.length > 0) out.customProperties = customProperties(extra);
    return out;
  };
  return (SERVER_TYPES[declared] ? attempt(declared) : undefined) ?? attempt("custom")!;
}

export function serversToOdcs(servers: unknown): Json[] | undefined {
  if (!isRecord(servers)) return undefined;
  return Object.entries(servers).map(([name, server]) => serverToOdcs(name, server));
}

/**
 * The head of an ODCS document from a Data Contract Specification's `info`, `terms` and `tags`;
 * every other member named in `rest` goes to customProperties.
 */
export function odcsHead(id: string, info: Json, terms: unknown, tags: unknown, rest: Array<[string, unknown]>): Json {
  const t = isRecord(terms) ? terms : {};
  const description = Object.fromEntries(
    [["purpose", str(info.description)], ["usage", str(t.usage)], ["limitations", str(t.limitations)]].filter(([, v]) => v !== undefined),
  );
  const head: Json = {
    apiVersion: "v3.1.0",
    kind: "DataContract",
    id,
    name: str(info.title) ?? id,
    version: str(info.version) ?? "0.0.0",
    status: str(info.status) ?? "active",
  };
  if (Object.keys(description).length > 0) head.description = description;
  if (str(info.owner) !== undefined) head.team = { name: info.owner };
  // ODCS has a top-level `domain`; the Data Contract Specification has none, and contracts that
  // name one do it in `info` (the `domainId` filter reads it there too).
  if (str(info.domain) !== undefined) head.domain = info.domain;
  if (Array.isArray(tags) && tags.every((x) => typeof x === "string")) head.tags = tags;
  const { title: _t, version: _v, status: _s, description: _d, owner: _o, ...allOtherInfo } = info;
  const otherInfo = head.domain === undefined ? allOtherInfo : Object.fromEntries(Object.entries(allOtherInfo).filter(([k]) => k !== "domain"));
  const { usage: _u, limitations: _l, ...otherTerms } = t;
  const custom = customProperties([
    ...Object.entries(otherInfo),
    ...Object.entries(otherTerms),
    ...(head.tags === undefined && tags !== undefined ? ([["tags", tags]] as Array<[string, unknown]>) : []),
    ...rest,
  ]);
  if (custom.length > 0) head.customProperties = custom;
  return head;
}
