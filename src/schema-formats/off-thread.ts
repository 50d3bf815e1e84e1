/**
 * Parsing big specifications off the event loop (PRODUCT.md §1): a YAML or JSON Schema document
 * of a few megabytes takes seconds of CPU, during which a server parsing it on its main thread
 * would answer nobody. Small specifications are parsed in place (a thread hop costs more than
 * they do); bigger ones go to a small pool of worker threads, with a deadline and a bounded queue.
 */
import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import { parseSchema } from "./index.js";
import { specificationBytes, type ParseLimits } from "./limits.js";
import { joinPath } from "./text.js";
import { rememberParse } from "./parse-cache.js";
import type { ParseResult } from "./types.js";
import type { ParseTask } from "./worker.js";

/** Specifications up to this size are parsed in place. */
export const IN_PLACE_BYTES = 64 * 1024;

/** Thrown when every worker is busy and the queue is full: the client should retry later. */
export class ParsersBusy extends Error {}

let pool: Piscina<ParseTask, ParseResult> | undefined;

function workerPool(): Piscina<ParseTask, ParseResult> {
  if (pool) return pool;
  // From source (tests, `npm run dev`) the worker is TypeScript, loaded through tsx.
  const fromSource = import.meta.url.endsWith(".ts");
  const threads = Math.max(1, Math.min(4, availableParallelism() - 1));
  pool = new Piscina<ParseTask, ParseResult>({
    filename: new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url).href,
    execArgv: fromSource ? ["--import", "tsx"] : [],
    minThreads: 0,
    maxThreads: threads,
    maxQueue: threads * 16,
    idleTimeout: 30_000,
  });
  return pool;
}

/** Parses a Schema object, on a worker thread when its specification is big. */
export async function parseSchemaOffThread(schema: unknown, path: string, limits: ParseLimits): Promise<ParseResult> {
  const specification = typeof schema === "object" && schema !== null ? (schema as { specification?: unknown }).specification : undefined;
  const bytes = specificationBytes(specification);
  // Too big to parse at all: the size check itself answers, in place.
  if (bytes <= IN_PLACE_BYTES || bytes > limits.maxSpecificationBytes) return parseSchema(schema, path, limits);
  const result = await parseOnWorker(schema, path, limits);
  rememberParse(schema, path, result);
  return result;
}

async function parseOnWorker(schema: unknown, path: string, limits: ParseLimits): Promise<ParseResult> {
  const workers = workerPool();
  if (workers.queueSize >= workers.options.maxQueue) throw new ParsersBusy("Every schema parser is busy.");
  try {
    return await workers.run({ schema, path, limits }, { signal: AbortSignal.timeout(limits.parseTimeoutMs) });
  } catch (error) {
    if (error instanceof Error && error.name === "AbortError") {
      const message = `parsing the specification took longer than ${limits.parseTimeoutMs} ms (SCHEMA_PARSE_TIMEOUT_MS)`;
      return { ok: false, violations: [{ field: joinPath(path, "specification"), message }] };
    }
    if (error instanceof Error && /queue is at limit/i.test(error.message)) throw new ParsersBusy("Every schema parser is busy.");
    throw error;
  }
}

/** Stops the worker threads (on shutdown). */
export async function closeSchemaParsers(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
