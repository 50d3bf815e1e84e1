import { type Static } from "@sinclair/typebox";
import { OpenObject } from "../../platform/http/shapes.js";
import { DpsOutputPortSchema, DpsSchema } from "../../product-formats/dps.js";

export const OutputPortSchema = DpsOutputPortSchema;

/**
 * A data product in either accepted format (docs/product.md §4): ODPS v1.0 (`apiVersion`, `kind:
 * DataProduct`) or the Data Product Specification 0.0.1 (`info`, ports with `id`). The format is
 * detected per document and validated by its own rules (src/product-formats); the document is
 * stored and returned exactly as sent, member for member.
 */
export const DataProductSchema = OpenObject(
  {},
  { title: "DataProduct", description: "An ODPS v1.0 document or a Data Product Specification 0.0.1 document." },
);

export type OutputPort = Static<typeof OutputPortSchema>;
/** Any accepted format; the members of the Data Product Specification are typed for readers that know it. */
export type DataProduct = Record<string, unknown> & { id: string } & Partial<Static<typeof DpsSchema>>;
