/**
 * The one interface every data product document format sits behind (docs/product.md §4): how a
 * document is recognised and validated, who owns it, and its output ports as one view, so access
 * requests and connectors find a port the same way whatever the format.
 */
import type { FieldViolation } from "../platform/errors.js";

export type ProductDocument = Record<string, unknown>;

import type { ProductFormatName } from "../formats/documents.js";

export type { ProductFormatName };

export interface ProductFacts {
  title: string;
  owner?: string;
  /** Path of the member the owner is read from, for violations. */
  ownerField: string;
  status?: string;
  description?: string;
  /** The business domain the product belongs to, where the format names one (the `domainId` filter). */
  domain?: string;
  /** Its kind, e.g. source-aligned or consumer-aligned (the `archetype` filter). */
  archetype?: string;
}

/** An output port as Steward reads it, whichever format wrote it. */
export interface OutputPortView {
  /** How an access names the port: the DPS `id`, or ODPS `<name>@<version>`. */
  id: string;
  /** Path of the port in the document (`outputPorts[2]`). */
  path: string;
  name?: string;
  version?: string;
  type?: string;
  status?: string;
  /** The data contract the port offers its data under, and the member that names it. */
  dataContractId: string | null;
  contractField: string;
  autoApprove: boolean;
  containsPii: boolean;
  /** Where the data is, as the document says; only ever a key into a connector's own configuration. */
  server?: Record<string, unknown>;
  /** The port as stored. */
  raw: Record<string, unknown>;
}

export interface ProductFormat {
  readonly name: ProductFormatName;
  readonly label: string;
  detects(doc: ProductDocument): boolean;
  /** Every violation of the format's rules, with paths into the document. */
  validate(doc: ProductDocument): FieldViolation[];
  facts(doc: ProductDocument): ProductFacts;
  /** The output ports in document order; tolerant of an invalid document. */
  outputPorts(doc: ProductDocument): OutputPortView[];
}
