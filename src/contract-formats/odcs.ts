/**
 * Open Data Contract Standard v3.0.x–v3.1.0 (`apiVersion: v3.x.y`, `kind: DataContract`).
 * Validated by Steward's own reading of the standard (odcs-shapes.ts); `schema[]` objects with
 * their `properties` are the models.
 */
import type { ValidateFunction } from "ajv";
import type { FieldViolation } from "../platform/errors.js";
import { createAjv, standardViolations } from "../platform/validation.js";
import type { LogicalType, ModelKind, NormalizedField, NormalizedModel } from "../schema-formats/types.js";
import { isRecord } from "../schema-formats/text.js";
import { customProperty, qualityRules, str } from "./members.js";
import { customProperties } from "./to-odcs.js";
import { conditionalViolations } from "./odcs-rules.js";
import { odcsDocumentSchema, QUALITY_OPERATORS } from "./odcs-shapes.js";
import type { ContractDocument, ContractFacts, ContractFormat } from "./types.js";

export const ODCS_VERSION = "v3.1.0";

let validator: ValidateFunction | undefined;

function structureViolations(doc: ContractDocument): FieldViolation[] {
  validator ??= createAjv().compile(odcsDocumentSchema());
  return validator(doc) ? [] : standardViolations(validator.errors);
}

function facts(doc: ContractDocument): ContractFacts {
  const team = isRecord(doc.team) ? doc.team : undefined;
  let owner: string | undefined;
  let ownerField = "team.name";
  if (str(team?.name) !== undefined) owner = str(team?.name);
  else {
    const custom = customProperty(doc.customProperties, "owner");
    if (custom && str(custom.value) !== undefined) [owner, ownerField] = [str(custom.value), `customProperties[${custom.index}].value`];
    else if (str(doc.domain) !== undefined) [owner, ownerField] = [str(doc.domain), "domain"];
  }
  const description = isRecord(doc.description) ? (str(doc.description.purpose) ?? str(doc.description.usage)) : undefined;
  return { title: str(doc.name) ?? String(doc.id), owner, ownerField, version: str(doc.version), status: str(doc.status), description, domain: str(doc.domain) };
}

const KINDS: Record<string, ModelKind> = { table: "table", view: "view", materialized_view: "materialized_view", "materialized view": "materialized_view" };

function field(property: Record<string, unknown>, name: string): NormalizedField {
  const logical = str(property.logicalType);
  const type: LogicalType = (logical as LogicalType | undefined) ?? (Array.isArray(property.properties) ? "object" : property.items !== undefined ? "array" : "unknown");
  const out: NormalizedField = { name, type, physicalType: str(property.physicalType) ?? logical ?? "", required: property.required === true };
  if (str(property.description) !== undefined) out.description = str(property.description);
  if (property.primaryKey === true) out.primaryKey = true;
  if (property.unique === true) out.unique = true;
  if (str(property.classification) !== undefined) out.classification = str(property.classification);
  const options = isRecord(property.logicalTypeOptions) ? property.logicalTypeOptions : {};
  if (typeof options.minLength === "number") out.minLength = options.minLength;
  if (typeof options.maxLength === "number") out.maxLength = options.maxLength;
  if (typeof options.pattern === "string") out.pattern = options.pattern;
  const quality = qualityRules(property.quality);
  if (quality) out.quality = quality;
  if (Array.isArray(property.properties)) out.fields = property.properties.filter(isRecord).map((p) => field(p, String(p.name)));
  if (isRecord(property.items)) out.items = field(property.items, "items");
  return out;
}

function models(doc: ContractDocument): NormalizedModel[] {
  if (!Array.isArray(doc.schema)) return [];
  return doc.schema.filter(isRecord).map((object) => {
    const model: NormalizedModel = {
      name: String(object.name),
      kind: KINDS[String(object.physicalType ?? "").toLowerCase()] ?? "object",
      fields: Array.isArray(object.properties) ? object.properties.filter(isRecord).map((p) => field(p, String(p.name))) : [],
    };
    if (str(object.description) !== undefined) model.description = str(object.description);
    const quality = qualityRules(object.quality);
    if (quality) model.quality = quality;
    return model;
  });
}

/** 3.0 named library rules; 3.1 names metrics. */
const LEGACY_RULES: Record<string, string> = { nullCheck: "nullValues", duplicateCount: "duplicateValues", rowCount: "rowCount", validValues: "invalidValues" };

/** 3.0.x → 3.1.0: the same document with library rules named as 3.1 names them. */
function upgradeQuality(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(upgradeQuality);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === "quality" && Array.isArray(value) ? value.map(upgradeRule) : upgradeQuality(value);
  return out;
}

function upgradeRule(rule: unknown): unknown {
  if (!isRecord(rule) || rule.metric !== undefined || typeof rule.rule !== "string") return rule;
  const metric = LEGACY_RULES[rule.rule];
  const { rule: legacy, ...rest } = rule;
  if (metric !== undefined) {
    // A 3.0 check meant "no offending rows" (or "some rows" for a row count); 3.1 says so with one comparison.
    const compared = QUALITY_OPERATORS.some((op) => rest[op] !== undefined);
    return { ...rest, metric, ...(compared ? {} : metric === "rowCount" ? { mustBeGreaterThan: 0 } : { mustBe: 0 }) };
  }
  // A rule 3.1 has no metric for stays a rule, as prose, rather than being dropped.
  const { type: _type, ...text } = Object.fromEntries(Object.entries(rest).filter(([k]) => !(QUALITY_OPERATORS as readonly string[]).includes(k)));
  return { ...text, type: "text", description: [str(rest.description), `Rule ${legacy} (ODCS 3.0).`].filter(Boolean).join(" ") };
}

const MEMBER_MEMBERS = new Set(["id", "username", "name", "description", "role", "dateIn", "dateOut", "replacedByUsername", "tags", "customProperties", "authoritativeDefinitions"]);

/** A 3.0 team member: members 3.1 does not know move to its customProperties. */
function upgradeMember(member: unknown): unknown {
  if (!isRecord(member)) return member;
  const known = Object.fromEntries(Object.entries(member).filter(([k]) => MEMBER_MEMBERS.has(k)));
  const extra = customProperties(Object.entries(member).filter(([k]) => !MEMBER_MEMBERS.has(k)));
  if (extra.length === 0) return known;
  return { ...known, customProperties: [...(Array.isArray(known.customProperties) ? known.customProperties : []), ...extra] };
}

export const odcsFormat: ContractFormat = {
  name: "odcs",
  label: "Open Data Contract Standard v3",
  detects: (doc) => doc.apiVersion !== undefined || doc.kind === "DataContract",
  validate(doc) {
    const legacy = typeof doc.apiVersion === "string" && doc.apiVersion.startsWith("v3.0.");
    return [...structureViolations(doc), ...conditionalViolations(doc, legacy)];
  },
  facts,
  models: (doc) => [{ type: "odcs", detectedType: "odcs", models: models(doc) }],
  toOdcs: (doc) => {
    const out: ContractDocument = { ...(upgradeQuality(doc) as ContractDocument), apiVersion: ODCS_VERSION };
    if (Array.isArray(doc.team)) out.team = { members: doc.team.map(upgradeMember) };
    return out;
  },
};
