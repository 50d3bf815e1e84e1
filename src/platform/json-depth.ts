import { badRequest, Problem } from "./errors.js";

/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_JSON_DEPTH = 200;

/** The problem (400) for a body, JSON or YAML, that nests deeper than MAX_JSON_DEPTH. */
export function bodyTooDeep(): Problem {
  return badRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
}

/**
 * A number lies beyond JSON's range (about 1.8e308) only when its integer digits and its exponent
 * together pass 308: `1e309`, 309 digits, or 250 digits and `e99`.
 */
const MAX_MAGNITUDE = 308;

export interface JsonTextScan {
  /** Arrays and objects nest deeper than the limit. */
  tooDeep: boolean;
  /**
   * A number may lie beyond JSON's range (`1e999`, 309 digits), which `JSON.parse` reads as
   * infinity: then the parsed value is walked to name it (json-values.ts). Only numbers count,
   * never digits inside strings, so ordinary documents skip the walk.
   */
  mayHoldHugeNumber: boolean;
}

/**
 * One pass over JSON text, before it is parsed: every later step (validation, comparison,
 * serialisation) walks a document recursively and would run out of stack on a body that is only
 * brackets. Each character is looked at once, so a hostile text costs what a plain one does;
 * inside strings only quotes and backslashes matter.
 */
export function scanJsonText(text: string, limit: number): JsonTextScan {
  let depth = 0;
  // Of the number being read: its integer digits, and its exponent (NaN outside one, -1 when negative).
  let integerDigits = 0;
  let fraction = false;
  let exponent = Number.NaN;
  let mayHoldHugeNumber = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (exponent >= 0) exponent = Math.min(exponent * 10 + (c - 0x30), 1e6);
      else if (Number.isNaN(exponent) && !fraction) integerDigits++;
      if (exponent >= 0 ? integerDigits + exponent > MAX_MAGNITUDE : integerDigits > MAX_MAGNITUDE) mayHoldHugeNumber = true;
      continue;
    }
    if (c === 0x65 || c === 0x45) {
      // e or E: the exponent's digits follow, after an optional sign.
      exponent = 0;
      continue;
    }
    if ((c === 0x2b || c === 0x2d) && exponent === 0) {
      // A negative exponent makes a small number, never an infinite one.
      if (c === 0x2d) exponent = -1;
      continue;
    }
    if (c === 0x2e) {
      fraction = true;
      continue;
    }
    // Anything else ends the number.
    integerDigits = 0;
    fraction = false;
    exponent = Number.NaN;
    if (c === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return { tooDeep: true, mayHoldHugeNumber };
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return { tooDeep: false, mayHoldHugeNumber };
}

/** Whether a parsed value nests objects and arrays deeper than `limit` (iterative, so it cannot overflow). */
export function valueNestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth >= limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
