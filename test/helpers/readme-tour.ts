import { expect } from "vitest";

/** The wildcard of the README's expected outputs: any value, or any characters inside a string. */
export const ELLIPSIS = "…";

export interface TourStep {
  /** 1-based line in README.md where the ```sh block starts, for failure messages. */
  line: number;
  code: string;
  expected?: { kind: "json" | "text"; body: string; line: number };
}

interface Fence {
  lang: string;
  body: string;
  line: number;
  /** The block's first and last line, to tell whether two blocks are adjacent. */
  start: number;
  end: number;
}

/** The part of README.md from `heading` up to the next heading of the same level. */
export function section(markdown: string, heading: string): { text: string; firstLine: number } {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`README.md has no "${heading}" heading`);
  const level = heading.split(" ")[0];
  let end = lines.findIndex((line, i) => i > start && line.startsWith(`${level} `));
  if (end < 0) end = lines.length;
  return { text: lines.slice(start, end).join("\n"), firstLine: start + 1 };
}

function fences(text: string, firstLine: number): Fence[] {
  const lines = text.split("\n");
  const found: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const close = lines.findIndex((line, j) => j > i && line.trim() === "```");
    if (close < 0) throw new Error(`unclosed code block at README.md line ${firstLine + i}`);
    found.push({ lang: open[1], body: lines.slice(i + 1, close).join("\n"), line: firstLine + i + 1, start: i, end: close });
    i = close;
  }
  return found;
}

/** Every ```sh block is a step; a ```json or ```text block right after it (blank lines between at most) is its expected output. */
export function tourSteps(text: string, firstLine: number): TourStep[] {
  const blocks = fences(text, firstLine);
  const lines = text.split("\n");
  const steps: TourStep[] = [];
  blocks.forEach((block, i) => {
    if (block.lang !== "sh") return;
    const next = blocks[i + 1];
    const adjacent = next !== undefined && lines.slice(block.end + 1, next.start).every((line) => line.trim() === "");
    const expected = adjacent && (next.lang === "json" || next.lang === "text") ? { kind: next.lang as "json" | "text", body: next.body, line: next.line } : undefined;
    steps.push({ line: block.line, code: block.body, expected });
  });
  return steps;
}

/** JSON values written one after another, each over one or more lines (pretty or compact). */
export function jsonValues(text: string, where: string): unknown[] {
  const values: unknown[] = [];
  let pending = "";
  for (const line of text.split("\n")) {
    if (pending === "" && line.trim() === "") continue;
    pending += `${line}\n`;
    try {
      values.push(JSON.parse(pending));
      pending = "";
    } catch {
      // Not a whole value yet: a pretty-printed value continues on the next line.
    }
  }
  if (pending.trim() !== "") throw new Error(`${where}: not JSON: ${pending.trim().slice(0, 300)}`);
  return values;
}

function wildcard(pattern: string): RegExp {
  const escaped = pattern.split(ELLIPSIS).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join("[\\s\\S]*")}$`);
}

/**
 * The expected value turned into vitest matchers, and the actual value cut to what the expected
 * one shows: objects are compared on the members shown, arrays element by element (an array that
 * ends with "…" may hold more), "…" matches any value and stands for any characters in a string.
 */
export function prepare(expected: unknown, actual: unknown): { expected: unknown; actual: unknown } {
  if (expected === ELLIPSIS) return { expected: expect.anything(), actual };
  if (typeof expected === "string" && expected.includes(ELLIPSIS)) return { expected: expect.stringMatching(wildcard(expected)), actual };
  if (Array.isArray(expected)) {
    const open = expected.at(-1) === ELLIPSIS;
    const shown = open ? expected.slice(0, -1) : expected;
    if (!Array.isArray(actual)) return { expected: shown, actual };
    const cut = open ? actual.slice(0, shown.length) : actual;
    const pairs = shown.map((item, i) => prepare(item, cut[i]));
    return { expected: pairs.map((p) => p.expected), actual: [...pairs.map((p) => p.actual), ...cut.slice(shown.length)] };
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return { expected, actual };
    const e: Record<string, unknown> = {};
    const a: Record<string, unknown> = { ...(actual as Record<string, unknown>) };
    for (const [key, value] of Object.entries(expected)) {
      const pair = prepare(value, a[key]);
      e[key] = pair.expected;
      if (key in a) a[key] = pair.actual;
    }
    return { expected: e, actual: a };
  }
  return { expected, actual };
}

/** Text: every line shown (but a lone "…") equals an output line, in order; other lines may come between. */
export function missingLines(expected: string, output: string): string[] {
  const actual = output.split("\n").map((line) => line.trim());
  let at = 0;
  const missing: string[] = [];
  for (const line of expected.split("\n").map((l) => l.trim())) {
    if (line === "" || line === ELLIPSIS) continue;
    const pattern = wildcard(line);
    const found = actual.findIndex((candidate, i) => i >= at && pattern.test(candidate));
    if (found < 0) missing.push(line);
    else at = found + 1;
  }
  return missing;
}
