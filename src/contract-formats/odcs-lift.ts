/**
 * Bringing an ODCS v3.1.0 contract up to v3.2.0 (docs/formats.md, "ODCS 3.2"). 3.2.0 accepts every
 * 3.1.0 member as it is, with one exception: its schema asks a property that names no logicalType
 * for a `map`. Such a property is given the logicalType its members imply (`object` with nested
 * properties, `array` with items), or `string` otherwise, and keeps in a custom property that the
 * contract did not state one.
 */
import { isRecord } from "../schema-formats/text.js";
import type { ContractDocument } from "./types.js";

export const ODCS_32_VERSION = "v3.2.0";
/** The custom property that marks a logicalType the contract did not state. */
export const UNSTATED_TYPE = "logicalTypeUnstated";

type Json = Record<string, unknown>;

function lifted(property: Json, depth: number): Json {
  if (depth > 256) return property;
  const out: Json = { ...property };
  if (out.logicalType === undefined && out.map === undefined) {
    out.logicalType = Array.isArray(out.properties) ? "object" : out.items !== undefined ? "array" : "string";
    out.customProperties = [...(Array.isArray(out.customProperties) ? out.customProperties : []), { property: UNSTATED_TYPE, value: true }];
  }
  if (Array.isArray(out.properties)) out.properties = out.properties.map((p) => (isRecord(p) ? lifted(p, depth + 1) : p));
  if (isRecord(out.items)) out.items = lifted(out.items, depth + 1);
  return out;
}

/** A valid 3.1.0 contract as a valid 3.2.0 one; a 3.2.0 contract unchanged. */
export function liftTo32(doc: ContractDocument): ContractDocument {
  if (doc.apiVersion === ODCS_32_VERSION) return doc;
  const schema = Array.isArray(doc.schema)
    ? doc.schema.map((object) => (isRecord(object) && Array.isArray(object.properties) ? { ...object, properties: object.properties.map((p) => (isRecord(p) ? lifted(p, 0) : p)) } : object))
    : doc.schema;
  return { ...doc, apiVersion: ODCS_32_VERSION, ...(schema === undefined ? {} : { schema }) };
}
