/**
 * Values a document cannot hold. Documents are stored and answered as JSON, so a value JSON
 * cannot carry would come back changed: a number out of JSON's range (`1e999`, YAML's `.inf`,
 * `.nan`) as `null`, YAML's own types (`!!binary`, `!!set`, `!!omap`, `!!timestamp`) as `{}`,
 * a byte array or a reformatted date. Such a member is refused and named instead.
 */
import { badRequest, type FieldViolation, Problem } from "./errors.js";
import { renderPath, type Segment } from "./paths.js";

/** What a value that JSON cannot carry is, or undefined for a JSON value (a leaf or a plain object or array). */
function unrepresentable(value: unknown): string | undefined {
  if (typeof value === "number") {
    return Number.isFinite(value) ? undefined : "is not a finite number (infinity, NaN and numbers beyond ±1.8e308 have no JSON value)";
  }
  if (typeof value === "bigint") return "is an integer JSON cannot carry";
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const prototype = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) return undefined;
  if (value instanceof Uint8Array) return "is binary data (!!binary), which has no JSON value; send it as a base64 string";
  if (value instanceof Set) return "is a set (!!set), which has no JSON value; send it as a list";
  if (value instanceof Map) return "is an ordered map (!!omap), which has no JSON value; send it as a mapping or a list of pairs";
  if (value instanceof Date) return "is a timestamp (!!timestamp), which has no JSON value; send it as a string";
  return "is not a JSON value";
}

/**
 * The first member (in document order) of a value that JSON cannot carry, with the reason.
 * Iterative: it runs before the depth of the value is known to be harmless.
 */
export function firstNonJsonMember(value: unknown): { path: Segment[]; message: string } | undefined {
  const stack: Array<[unknown, Segment[]]> = [[value, []]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    const message = unrepresentable(current);
    if (message !== undefined) return { path, message };
    if (typeof current !== "object" || current === null) continue;
    const entries: Array<[Segment, unknown]> = Array.isArray(current) ? current.map((v, i) => [i, v]) : Object.entries(current);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      if (typeof child === "object" ? child !== null : typeof child === "number" || typeof child === "bigint") stack.push([child, [...path, key]]);
    }
  }
  return undefined;
}

/**
 * The problem (400) for a body holding such a member, naming it; `locate` adds its line and
 * column when the body was YAML.
 */
export function nonJsonMemberProblem(found: { path: Segment[]; message: string }, locate?: (path: Segment[]) => Partial<FieldViolation> | undefined): Problem {
  const field = renderPath("", found.path) || "body";
  const violation = { field, message: found.message, ...locate?.(found.path) };
  return badRequest(`The request body holds a value JSON cannot carry: ${field} ${found.message}.`, [violation]);
}
