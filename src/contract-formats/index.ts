/**
 * Data contract document formats (docs/product.md §4), side by side behind one interface. Detection
 * asks each format in turn; the first that recognises the document reads it.
 */
import { dcsFormat } from "./dcs.js";
import { dcs09Format } from "./dcs09.js";
import { odcsFormat } from "./odcs.js";
import type { ContractDocument, ContractFormat } from "./types.js";

export * from "./types.js";

/** In detection order: the ODCS marker (`apiVersion`/`kind`) first, the seed's format last. */
export const CONTRACT_FORMATS: readonly ContractFormat[] = [odcsFormat, dcsFormat, dcs09Format];

export function contractFormatOf(doc: ContractDocument): ContractFormat {
  return CONTRACT_FORMATS.find((f) => f.detects(doc)) ?? dcs09Format;
}
