/**
 * Values a document cannot hold. Documents are stored and answered as JSON, so a value JSON
 * cannot carry would come back changed: a number out of JSON's range (`1e999`, YAML's `.inf`,
 * `.nan`) as `null`, YAML's own types (`!!binary`, `!!set`, `!!omap`, `!!timestamp`) as `{}`,
 * a byte array or a reformatted date. Such a member is refused and named instead.
 */
import type { Segment } from "./paths.js";

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

/** An exponent of three digits or more: each match starts at an `e`, so the scan is linear. */
const LONG_EXPONENT = /[eE]\+?0*[1-9]\d{2}/;

/** A number can only pass JSON's range (about 1.8e308) with more than 308 digits before its point. */
const MAX_FINITE_DIGITS = 308;

/**
 * Whether JSON text may hold a number beyond JSON's range (`1e999`, or more than 308 digits
 * before the point), which `JSON.parse` reads as infinity. Cheap, and the rare text that matches
 * by chance (in a string) only costs the walk of `firstNonJsonMember`. Digit runs are counted in a
 * loop: a pattern such as `\d{309}` retries at every digit of a run and took seconds on a body of
 * long runs that stop just short of it.
 */
export function mayHoldHugeNumber(text: string): boolean {
  if (LONG_EXPONENT.test(text)) return true;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (++run > MAX_FINITE_DIGITS) return true;
    } else run = 0;
  }
  return false;
}
