/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_JSON_DEPTH = 200;

/** A number can only pass JSON's range (about 1.8e308) with more than 308 digits before its point… */
const MAX_FINITE_DIGITS = 308;
/** …or an exponent of three digits or more. */
const MAX_SAFE_EXPONENT_DIGITS = 2;

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
  let digits = 0;
  let exponentDigits = -1; // counting the significant digits of an exponent, or -1 outside one
  let mayHoldHugeNumber = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
      digits = 0;
      exponentDigits = -1;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++digits > MAX_FINITE_DIGITS) mayHoldHugeNumber = true;
      if (exponentDigits >= 0 && (exponentDigits > 0 || c !== 0x30) && ++exponentDigits > MAX_SAFE_EXPONENT_DIGITS) mayHoldHugeNumber = true;
    } else if (c === 0x65 || c === 0x45) {
      // e or E: an exponent's digits follow (after an optional sign).
      digits = 0;
      exponentDigits = 0;
    } else if ((c === 0x2b || c === 0x2d) && exponentDigits === 0) {
      // The exponent's sign: a negative exponent makes a small number, never an infinite one.
      if (c === 0x2d) exponentDigits = -1;
    } else {
      // A point ends the integer part (a fraction's digits cannot overflow); anything else ends the number.
      digits = c === 0x2e ? -Infinity : 0;
      exponentDigits = -1;
      if (c === 0x5b || c === 0x7b) {
        if (++depth > limit) return { tooDeep: true, mayHoldHugeNumber };
      } else if (c === 0x5d || c === 0x7d) {
        depth--;
      }
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
