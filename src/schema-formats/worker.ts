/** A worker thread's task: parse one Schema object (see `off-thread.ts`). */
import { parseSchema } from "./index.js";
import type { ParseLimits } from "./limits.js";
import type { ParseResult } from "./types.js";

export interface ParseTask {
  schema: unknown;
  path: string;
  limits: ParseLimits;
}

export default function parse(task: ParseTask): ParseResult {
  return parseSchema(task.schema, task.path, task.limits);
}
