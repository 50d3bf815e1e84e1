/**
 * Results of specifications parsed ahead (on a worker thread, before a write transaction), by
 * Schema object: the synchronous validation that follows finds them here instead of parsing the
 * same object again on the event loop. Weakly held: a request's objects go with the request.
 */
import type { ParseResult } from "./types.js";

const results = new WeakMap<object, { path: string; result: ParseResult }>();

export function rememberParse(schema: unknown, path: string, result: ParseResult): void {
  if (typeof schema === "object" && schema !== null) results.set(schema, { path, result });
}

export function recalledParse(schema: unknown, path: string): ParseResult | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const entry = results.get(schema);
  return entry?.path === path ? entry.result : undefined;
}
