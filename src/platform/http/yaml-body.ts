/**
 * YAML over HTTP (docs/product.md §3): catalog documents may be sent as YAML, and a data contract read
 * as YAML. Big documents are parsed and written on a worker thread (`src/workers/`), so that a
 * few megabytes of YAML never hold the event loop (docs/product.md §1).
 */
import type { FastifyRequest } from "fastify";
import { badRequest, type FieldViolation, Problem, unsupportedMediaType } from "../errors.js";
import { parsePath, type Segment } from "../paths.js";
import { holdsMoreThan, readYaml, writeYaml, type YamlPosition } from "../yaml-document.js";
import { WorkerTimedOut, type Workers } from "../../workers/pool.js";
import { inOrganization } from "../../metrics/registry.js";
import { bodyText } from "./json-body.js";
import { keepText } from "../yaml-sources.js";
import type { App } from "./types.js";

export const YAML_MEDIA_TYPES = ["application/yaml", "application/x-yaml", "text/yaml"] as const;

/**
 * YAML bodies up to this size are parsed on the main thread, bigger ones on a worker thread: a
 * few kilobytes of YAML take milliseconds, 64 KB of many keys took a loaded server seconds.
 */
export const YAML_IN_PLACE_BYTES = 4 * 1024;

/** Members and items up to which a document is written as YAML in place (some tens of kilobytes). */
const IN_PLACE_NODES = 4_000;

declare module "fastify" {
  interface FastifyContextConfig {
    /** The route accepts YAML bodies besides JSON. */
    yamlBody?: boolean;
  }
}

/** Finds where paths of a request's YAML body start, to place its violations. */
type Locate = (paths: Segment[][]) => Promise<Array<YamlPosition | undefined>>;

const bodies = new WeakMap<FastifyRequest, Locate>();

/**
 * Registers the YAML media types; routes opt in with `config: { yamlBody: true }`, others answer
 * 415. `timeoutMs` bounds the parse of a big body (SCHEMA_PARSE_TIMEOUT_MS), done by the application's `workers`.
 */
export function registerYamlBodies(app: App, timeoutMs: number, workers: Workers): void {
  app.addContentTypeParser([...YAML_MEDIA_TYPES], { parseAs: "buffer" }, async (request: FastifyRequest, body: string | Buffer) => {
    if (request.routeOptions.config?.yamlBody !== true) {
      throw unsupportedMediaType("This operation takes JSON only (Content-Type: application/json).");
    }
    const text = bodyText(request, body as Buffer);
    if (text === null) return null;
    // Parsing YAML costs far more per byte than JSON: only small bodies are parsed in place.
    if (text.length <= YAML_IN_PLACE_BYTES) {
      const { value, source } = readYaml(text);
      bodies.set(request, async (paths) => paths.map((path) => source.locate(path)));
      return keepText(value, text);
    }
    // A body is parsed outside the request's async context: name its organization for the worker metrics,
    // and its share of the workers (src/workers/shares.ts).
    const owner = request.principal?.organizationId ?? "";
    const parse = () => workers.run("parseYaml", text, timeoutMs, owner);
    const parsed = await timedOutAs(inOrganization(request.principal?.organizationId, parse), `Parsing the ${text.length}-character YAML body`, 413);
    if ("invalid" in parsed) throw badRequest(parsed.invalid, parsed.violations);
    // The worker's parse is gone; the rare request whose body turns out invalid parses it again there.
    bodies.set(request, (paths) => workers.run("locateInYaml", { text, paths }, timeoutMs, owner));
    return keepText(parsed.value, text);
  });
}

/** A document as YAML text, written on a worker thread when it is big. */
export async function yamlText(value: unknown, timeoutMs: number, workers: Workers): Promise<string> {
  if (!holdsMoreThan(value, IN_PLACE_NODES)) return writeYaml(value);
  return timedOutAs(workers.run("writeYaml", value, timeoutMs), "Writing the document as YAML", 503);
}

/** Work on a worker thread whose deadline passed becomes a `status` problem (a full queue is a 429 of its own, `WorkersBusy`). */
async function timedOutAs<T>(work: Promise<T>, doing: string, status: number): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof WorkerTimedOut) {
      throw new Problem(status, `${doing} took longer than ${error.timeoutMs} ms (SCHEMA_PARSE_TIMEOUT_MS).`);
    }
    throw error;
  }
}

/**
 * Adds line/column to violations of a YAML body that do not carry a position of their own. Without
 * positions (the workers are busy) the violations are still all there.
 */
export async function positionViolations(request: FastifyRequest, violations: FieldViolation[]): Promise<FieldViolation[]> {
  const locate = bodies.get(request);
  const unplaced = violations.filter((v) => v.line === undefined);
  if (!locate || unplaced.length === 0) return violations;
  let positions: Array<YamlPosition | undefined>;
  try {
    positions = await locate(unplaced.map((v) => parsePath(v.field)));
  } catch (error) {
    request.log.warn({ err: error }, "could not place the violations of a YAML body");
    return violations;
  }
  const placed = new Map(unplaced.map((v, i) => [v, positions[i]]));
  return violations.map((v) => {
    const pos = placed.get(v);
    return pos ? { ...v, ...pos } : v;
  });
}
