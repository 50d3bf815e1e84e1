/**
 * Parsing big specifications off the event loop (docs/product.md §1): a YAML or JSON Schema document
 * of a few megabytes takes seconds of CPU. Small specifications are parsed in place (a thread hop
 * costs more than they do); bigger ones go to the worker threads of `src/workers/`.
 */
import { IN_PLACE_BYTES, WorkerTimedOut, type Workers } from "../workers/pool.js";
import { parseSchema } from "./index.js";
import { specificationBytes, type ParseLimits } from "./limits.js";
import { joinPath } from "./text.js";
import { rememberParse } from "./parse-cache.js";
import type { ParseResult } from "./types.js";

/** How one application parses specifications: its limits, and the worker threads big ones go to. */
export interface Parsing {
  limits: ParseLimits;
  workers: Workers;
}

/**
 * Parses a Schema object, on a worker thread when its specification is big. Throws `WorkersBusy`
 * when every worker is busy and the queue is full.
 */
export async function parseSchemaOffThread(schema: unknown, path: string, { limits, workers }: Parsing): Promise<ParseResult> {
  const specification = typeof schema === "object" && schema !== null ? (schema as { specification?: unknown }).specification : undefined;
  const bytes = specificationBytes(specification);
  // Too big to parse at all: the size check itself answers, in place.
  if (bytes <= IN_PLACE_BYTES || bytes > limits.maxSpecificationBytes) return parseSchema(schema, path, limits);
  let result: ParseResult;
  try {
    result = await workers.run("parseSchema", { schema, path, limits }, limits.parseTimeoutMs);
  } catch (error) {
    if (!(error instanceof WorkerTimedOut)) throw error;
    const message = `parsing the specification took longer than ${limits.parseTimeoutMs} ms (SCHEMA_PARSE_TIMEOUT_MS)`;
    result = { ok: false, violations: [{ field: joinPath(path, "specification"), message }] };
  }
  rememberParse(schema, path, result);
  return result;
}
