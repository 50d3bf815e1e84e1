/** How much a specification may cost and make a parser produce (docs/product.md §1, resource limits). */
export interface ParseLimits {
  /** Fields of the normalized models of one contract, nested ones and definitions included. */
  maxFields: number;
  /** Size of one `specification` (UTF-8 bytes of its text, or of its JSON when sent as a value). */
  maxSpecificationBytes: number;
  /** How long parsing one specification on a worker thread may take. */
  parseTimeoutMs: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxFields: 100_000,
  maxSpecificationBytes: 2 * 1024 * 1024,
  parseTimeoutMs: 30_000,
};

/** Thrown by a parser that would describe more fields than the limit allows. */
export class FieldLimitExceeded extends Error {
  constructor(readonly limit: number) {
    super(`the normalized models would have more than ${limit} fields, the limit for one contract (MAX_MODEL_FIELDS)`);
  }
}

/** The size a specification counts for against `maxSpecificationBytes`. */
export function specificationBytes(specification: unknown): number {
  if (typeof specification === "string") return new TextEncoder().encode(specification).length;
  try {
    return new TextEncoder().encode(JSON.stringify(specification) ?? "").length;
  } catch {
    return 0;
  }
}
