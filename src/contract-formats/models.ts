/**
 * The normalized models of a contract of any format, held to MAX_MODEL_FIELDS (docs/product.md §1).
 * Every path that builds models goes through here — validating a write, and the models,
 * conversions and differences a read answers — so no format can store more fields than the limit,
 * and a contract stored before the limit was lowered is refused with a problem naming it instead of
 * being turned into an answer of any size.
 */
import { invalid, type FieldViolation } from "../platform/errors.js";
import { countFields } from "../schema-formats/definitions.js";
import { FieldLimitExceeded, type ParseLimits } from "../schema-formats/limits.js";
import { parseSchemaOffThread, type Parsing } from "../schema-formats/off-thread.js";
import { schemasOf } from "./dcs09.js";
import { contractFormatOf } from "./index.js";
import type { ContractDocument, ContractFormatName, ModelGroup } from "./types.js";

/** The member of each format that holds its models: where a violation of the limit points. */
const MODELS_MEMBER: Record<ContractFormatName, string> = { odcs: "schema", dcs: "models", "dcs-0.9": "schema" };

type Bounded = { ok: true; groups: ModelGroup[] } | { ok: false; violation: FieldViolation };

/**
 * Models already built, by document object: a write validates, then compares the same document
 * with its previous version, and should not normalize it twice. Weakly held, like parse results.
 */
const built = new WeakMap<object, { limit: number; result: Bounded }>();

function overLimit(doc: ContractDocument, limit: number, fields?: number): Bounded {
  const counted = fields === undefined ? `more than ${limit}` : `${fields}`;
  const message = `the normalized models of the contract have ${counted} fields, more than the limit of ${limit} (MAX_MODEL_FIELDS)`;
  return { ok: false, violation: { field: MODELS_MEMBER[contractFormatOf(doc).name], message } };
}

/** The models of a valid document, or the violation of the field limit; nested fields, array items and definitions count. */
export function boundedModels(doc: ContractDocument, limits: ParseLimits): Bounded {
  const known = built.get(doc);
  if (known?.limit === limits.maxFields) return known.result;
  let result: Bounded;
  try {
    const groups = contractFormatOf(doc).models(doc, limits);
    const fields = countFields(groups.flatMap((g) => [...g.models.map((m) => m.fields), g.definitions]));
    result = fields > limits.maxFields ? overLimit(doc, limits.maxFields, fields) : { ok: true, groups };
  } catch (error) {
    if (!(error instanceof FieldLimitExceeded)) throw error;
    result = overLimit(doc, limits.maxFields);
  }
  built.set(doc, { limit: limits.maxFields, result });
  return result;
}

/** Every violation of a contract document: its format's rules, then the field limit of its models. */
export function contractViolations(doc: ContractDocument, limits: ParseLimits): FieldViolation[] {
  const violations = contractFormatOf(doc).validate(doc, limits);
  if (violations.length > 0) return violations;
  const models = boundedModels(doc, limits);
  return models.ok ? [] : [models.violation];
}

/** The models of a stored or proposed contract; 422 naming the limit when they are over it. */
export function contractModels(doc: ContractDocument, limits: ParseLimits): ModelGroup[] {
  const models = boundedModels(doc, limits);
  if (!models.ok) throw invalid("The data contract's normalized models are over the field limit.", [models.violation]);
  return models.groups;
}

/** The document as ODCS v3.1.0; 422 naming the limit when the models it is built from are over it. */
export function contractToOdcs(doc: ContractDocument & { id: string }, limits: ParseLimits): ContractDocument {
  const format = contractFormatOf(doc);
  // ODCS is already ODCS: its conversion is a copy, linear in the stored document, and needs no
  // models. The others are built from the models just checked against the limit, not built again.
  return format.name === "odcs" ? format.toOdcs(doc) : format.toOdcs(doc, contractModels(doc, limits));
}

/**
 * Parses the typed schemas of a 0.9 contract ahead, on worker threads when they are big, so that
 * the synchronous validation, models and conversions that follow find the results instead of
 * parsing megabytes of YAML on the event loop. Other formats hold their models in the document.
 */
export async function parseContractAhead(doc: ContractDocument, parsing: Parsing): Promise<void> {
  if (contractFormatOf(doc).name !== "dcs-0.9" || doc.schema === undefined || doc.schema === null) return;
  for (const { schema, path } of schemasOf(doc)) await parseSchemaOffThread(schema, path, parsing);
}
