/**
 * Open Data Contract Standard v3.0.x–v3.2.0 (`apiVersion: v3.x.y`, `kind: DataContract`).
 * Validated by Steward's own reading of the standard (odcs-shapes.ts), in the edition the document
 * names (odcs-editions.ts); `schema[]` objects with their `properties` are the models.
 */
import type { ValidateFunction } from "ajv";
import type { FieldViolation } from "../platform/errors.js";
import { createAjv, standardViolations } from "../platform/validation.js";
import type { LogicalType, ModelKind, NormalizedField, NormalizedModel } from "../schema-formats/types.js";
import { isRecord } from "../schema-formats/text.js";
import { isOdcs, standardOwnership } from "../formats/documents.js";
import { qualityRules, str } from "./members.js";
import { conditionalViolations } from "./odcs-rules.js";
import { odcsDocumentSchema } from "./odcs-shapes.js";
import { editionOf, ODCS_3_0, ODCS_API_VERSIONS, type OdcsEdition } from "./odcs-editions.js";
import { fitContract } from "./odcs-fit.js";
import { contractTitle } from "./title.js";
import type { ContractDocument, ContractFacts, ContractFormat } from "./types.js";


const validators = new Map<OdcsEdition, ValidateFunction>();

function structureViolations(doc: ContractDocument, edition: OdcsEdition): FieldViolation[] {
  let validator = validators.get(edition);
  if (!validator) validators.set(edition, (validator = createAjv().compile(odcsDocumentSchema(edition, ODCS_API_VERSIONS))));
  return validator(doc) ? [] : standardViolations(validator.errors);
}

function facts(doc: ContractDocument): ContractFacts {
  const { owner, ownerField } = standardOwnership(doc);
  const description = isRecord(doc.description) ? (str(doc.description.purpose) ?? str(doc.description.usage)) : undefined;
  return { title: contractTitle(doc), owner, ownerField, version: str(doc.version), status: str(doc.status), description, domain: str(doc.domain) };
}

const KINDS: Record<string, ModelKind> = { table: "table", view: "view", materialized_view: "materialized_view", "materialized view": "materialized_view" };

function field(property: Record<string, unknown>, name: string): NormalizedField {
  const logical = str(property.logicalType);
  const type: LogicalType =
    (logical as LogicalType | undefined) ??
    (Array.isArray(property.properties) ? "object" : property.items !== undefined ? "array" : property.map !== undefined ? "map" : "unknown");
  const out: NormalizedField = { name, type, physicalType: str(property.physicalType) ?? logical ?? "", required: property.required === true };
  if (str(property.description) !== undefined) out.description = str(property.description);
  if (property.primaryKey === true) out.primaryKey = true;
  if (property.unique === true) out.unique = true;
  if (str(property.classification) !== undefined) out.classification = str(property.classification);
  const options = isRecord(property.logicalTypeOptions) ? property.logicalTypeOptions : {};
  if (typeof options.minLength === "number") out.minLength = options.minLength;
  if (typeof options.maxLength === "number") out.maxLength = options.maxLength;
  if (typeof options.pattern === "string") out.pattern = options.pattern;
  if (typeof options.dimensions === "number") out.dimensions = options.dimensions;
  if (Array.isArray(property.enum)) out.enum = property.enum.filter(isRecord).map((entry) => entry.value as string | number | boolean | null);
  const quality = qualityRules(property.quality);
  if (quality) out.quality = quality;
  if (isRecord(property.map)) {
    if (isRecord(property.map.key)) out.key = field(property.map.key, "key");
    if (isRecord(property.map.value)) out.items = field(property.map.value, "value");
  }
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

export const odcsFormat: ContractFormat = {
  name: "odcs",
  label: "Open Data Contract Standard v3",
  detects: isOdcs,
  validate(doc) {
    const edition = editionOf(doc);
    return [...structureViolations(doc, edition), ...conditionalViolations(doc, edition)];
  },
  facts,
  models: (doc) => [{ type: "odcs", detectedType: "odcs", models: models(doc) }],
  // A 3.1.0 or 3.2.0 contract is already ODCS its edition's schema accepts; only 3.0.x is brought up to 3.1.0.
  toOdcs: (doc) => (editionOf(doc) === ODCS_3_0 ? fitContract(doc) : { ...doc }),
};
