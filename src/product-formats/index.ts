/**
 * Data product document formats (docs/product.md §4), side by side behind one interface: ODPS first
 * (its `apiVersion`/`kind` mark it), the Data Product Specification otherwise.
 */
import { dpsFormat } from "./dps.js";
import { odpsFormat } from "./odps.js";
import type { ProductDocument, ProductFormat } from "./types.js";

export * from "./types.js";

export const PRODUCT_FORMATS: readonly ProductFormat[] = [odpsFormat, dpsFormat];

export function productFormatOf(doc: ProductDocument): ProductFormat {
  return PRODUCT_FORMATS.find((f) => f.detects(doc)) ?? dpsFormat;
}
