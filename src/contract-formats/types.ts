/**
 * The one interface every data contract document format sits behind (docs/product.md §4): how a
 * document is recognised, validated, who owns it, which version it is, its normalized models,
 * and its conversion to the Open Data Contract Standard. A new format is one new file.
 */
import type { FieldViolation } from "../platform/errors.js";
import type { ParseLimits } from "../schema-formats/limits.js";
import type { NormalizedField, NormalizedModel } from "../schema-formats/types.js";

export type ContractDocument = Record<string, unknown>;

import type { ContractFormatName } from "../formats/documents.js";

export type { ContractFormatName };

/** What Steward indexes and authorizes by, read from a document of any format. */
export interface ContractFacts {
  title: string;
  /** Id of the owning team, and the path of the member it was read from. */
  owner?: string;
  ownerField: string;
  version?: string;
  status?: string;
  description?: string;
  /** The business domain the contract belongs to, where the format names one (the `domainId` filter). */
  domain?: string;
}

/** The models of one part of a contract: one typed schema, or the contract's own models. */
export interface ModelGroup {
  /** The schema type as stored (`dbt`, `avro`…), or the contract format for a format's own models. */
  type: string;
  /** What it was parsed as: `avro` for an Avro record sent as jsonschema. */
  detectedType: string;
  models: NormalizedModel[];
  /** Types that fields refer to by `ref`, each described once (linear normalization). */
  definitions?: NormalizedField[];
}

export interface ContractFormat {
  readonly name: ContractFormatName;
  /** The format's name for people, in messages and docs. */
  readonly label: string;
  /** Whether a document is written in this format, by the member that marks it. */
  detects(doc: ContractDocument): boolean;
  /**
   * Every violation of the format's rules, with paths into the document. `limits`: the
   * application's, for a format that parses specifications (defaults: `DEFAULT_PARSE_LIMITS`).
   */
  validate(doc: ContractDocument, limits?: ParseLimits): FieldViolation[];
  facts(doc: ContractDocument): ContractFacts;
  /**
   * Normalized models; only called on a valid document, through `contractModels` (./models.ts),
   * which holds every format to MAX_MODEL_FIELDS. A format whose models can grow faster than its
   * document (references expanded where they are used) stops with `FieldLimitExceeded` at
   * `limits.maxFields` rather than build them.
   */
  models(doc: ContractDocument, limits?: ParseLimits): ModelGroup[];
  /**
   * The document as ODCS v3.1.0; only called on a valid document. `groups`: its models, when the
   * caller has built them already (a format that needs them builds them otherwise).
   */
  toOdcs(doc: ContractDocument & { id: string }, groups?: ModelGroup[]): ContractDocument;
}
