/**
 * JSON text parsed in slices, yielding the event loop between them (docs/security.md, "Resource
 * limits"): `JSON.parse` of 10 MiB holds a loaded server for a second, and handing the text to a
 * worker thread does not help, because taking the value back costs the main thread as much again.
 * Instead a big document's arrays and objects are split at their members, each small member is
 * parsed whole, and the parse gives way to other requests whenever it has worked `budgetMs`.
 *
 * One linear pass first finds where every big array and object ends; each level is then split
 * skipping over the big ones, so the whole parse stays linear in the text.
 */

export interface SliceOptions {
  /** Arrays and objects up to this many characters are parsed whole. */
  sliceChars: number;
  /** How long the parse may work before it lets other work run. */
  budgetMs: number;
  /** Parses one small piece of JSON text; throws when it is not JSON. */
  parse: (text: string) => unknown;
  /** The error of text that is not JSON. */
  invalid: () => Error;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Where each array or object longer than `sliceChars` ends, by where it starts; undefined when brackets do not match. */
function bigSpans(text: string, sliceChars: number): Map<number, number> | undefined {
  const spans = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i === -1) return undefined;
    } else if (c === 0x7b || c === 0x5b) open.push(i);
    else if (c === 0x7d || c === 0x5d) {
      const start = open.pop();
      if (start === undefined || text.charCodeAt(start) !== (c === 0x7d ? 0x7b : 0x5b)) return undefined;
      if (i - start + 1 > sliceChars) spans.set(start, i);
    }
  }
  return open.length === 0 ? spans : undefined;
}

/** The index of the quote that closes the string opening at `at`, or -1. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return -1;
}

/** The index just past the value starting at `at` (within `end`), skipping big spans by their known end. */
function valueEnd(text: string, at: number, end: number, spans: Map<number, number>): number {
  let depth = 0;
  for (let i = at; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i === -1) return -1;
      if (depth === 0) return i + 1;
    } else if (c === 0x7b || c === 0x5b) {
      const known = spans.get(i);
      if (known !== undefined) {
        i = known;
        if (depth === 0) return i + 1;
      } else depth++;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && (c === 0x2c || c === 0x3a || isSpace(c))) return i;
  }
  return end;
}

export async function parseJsonInSlices(text: string, options: SliceOptions): Promise<unknown> {
  const { sliceChars, budgetMs, parse, invalid } = options;
  const spans = bigSpans(text, sliceChars);
  if (!spans) throw invalid();
  let since = performance.now();
  const pause = async () => {
    if (performance.now() - since < budgetMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  };
  const skip = (i: number, end: number) => {
    while (i < end && isSpace(text.charCodeAt(i))) i++;
    return i;
  };

  const value = async (start: number, end: number): Promise<unknown> => {
    const close = spans.get(start);
    if (close === undefined || close !== end - 1) {
      const parsed = parse(text.slice(start, end));
      await pause();
      return parsed;
    }
    const object = text.charCodeAt(start) === 0x7b;
    const out: Record<string, unknown> | unknown[] = object ? {} : [];
    let i = skip(start + 1, close);
    if (i === close) return out;
    for (;;) {
      let key: string | undefined;
      if (object) {
        if (text.charCodeAt(i) !== 0x22) throw invalid();
        const keyEnd = stringEnd(text, i);
        if (keyEnd === -1 || keyEnd >= close) throw invalid();
        key = parse(text.slice(i, keyEnd + 1)) as string;
        i = skip(keyEnd + 1, close);
        if (text.charCodeAt(i) !== 0x3a) throw invalid();
        i = skip(i + 1, close);
      }
      const after = valueEnd(text, i, close, spans);
      if (after === -1 || after === i) throw invalid();
      const member = await value(i, after);
      if (key === undefined) (out as unknown[]).push(member);
      else {
        // What the parser refuses of small objects, it refuses of big ones (prototype poisoning).
        if (key === "__proto__") throw invalid();
        if (key === "constructor" && typeof member === "object" && member !== null && Object.hasOwn(member, "prototype")) throw invalid();
        (out as Record<string, unknown>)[key] = member;
      }
      i = skip(after, close);
      if (i === close) return out;
      if (text.charCodeAt(i) !== 0x2c) throw invalid();
      i = skip(i + 1, close);
      if (i === close) throw invalid();
    }
  };

  const start = skip(0, text.length);
  let end = text.length;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return value(start, end);
}
