/**
 * What a worker thread can be asked to do (see `pool.ts`): each function of `tasks` is one task,
 * called with one input that crosses threads by structured clone, as does its result.
 */
import { parseSchema as parse } from "../schema-formats/index.js";
import type { ParseLimits } from "../schema-formats/limits.js";
import type { ParseResult } from "../schema-formats/types.js";
import { readYaml, writeYaml, YamlSource, type YamlPosition } from "../platform/yaml-document.js";
import { Problem, type FieldViolation } from "../platform/errors.js";
import type { Segment } from "../platform/paths.js";

/** Parses one Schema object. */
function parseSchema(task: { schema: unknown; path: string; limits: ParseLimits }): ParseResult {
  return parse(task.schema, task.path, task.limits);
}

/**
 * The source of the last YAML body this thread parsed, when it was at most `KEPT_SOURCE_CHARS`:
 * a body refused by validation is located next, and finding it here spares a second parse.
 */
let kept: { text: string; source: YamlSource } | undefined;
const KEPT_SOURCE_CHARS = 1024 * 1024;

/** A YAML document as a plain value, or why it is not one (the detail and violations of a 400). */
function parseYaml(text: string): { value: unknown } | { invalid: string; violations?: FieldViolation[] } {
  kept = undefined;
  try {
    const { value, source } = readYaml(text);
    if (text.length <= KEPT_SOURCE_CHARS) kept = { text, source };
    return { value };
  } catch (error) {
    if (error instanceof Problem) return { invalid: error.detail, violations: error.violations };
    throw error;
  }
}

/** Where each path starts in a YAML document already parsed once (to place violations). */
function locateInYaml(task: { text: string; paths: Segment[][] }): Array<YamlPosition | undefined> {
  const source = kept?.text === task.text ? kept.source : YamlSource.of(task.text);
  kept = undefined;
  return task.paths.map((path) => source.locate(path));
}

export const tasks = { parseSchema, parseYaml, locateInYaml, writeYaml };

/**
 * The worker's one entry: runs the task a message names. (One default export rather than
 * Piscina's named tasks: a starting thread loads the module's default export, and from source,
 * through tsx, a module without one fails to load.)
 */
export default function runTask(message: { name: keyof typeof tasks; input: unknown }): unknown {
  return (tasks[message.name] as (input: unknown) => unknown)(message.input);
}
