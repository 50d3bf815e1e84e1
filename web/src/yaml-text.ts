import { isCollection, isScalar, LineCounter, parseDocument, stringify, type Node } from "yaml";
import type { Violation } from "./violation.js";

/**
 * Documents as people write them: YAML (JSON is YAML too). The text is parsed here and sent to
 * the server as JSON; the server's violations name paths (`schema[0].name`), which are found
 * again in the text so every problem points at its line.
 */

export interface LineProblem extends Violation {
  /** 1-based line in the editor's text, when the problem could be placed. */
  at?: { line: number; column: number };
}

export interface ParsedText {
  value?: unknown;
  /** Syntax problems: the text is not YAML/JSON at all. */
  problems: LineProblem[];
  /** Places server violations in the text. */
  locate(violations: Violation[]): LineProblem[];
}

/** `schema[0].specification["odd key"]` → ["schema", 0, "specification", "odd key"] (the server's path syntax, src/platform/paths.ts). */
export function pathSegments(path: string): Array<string | number> {
  const segments: Array<string | number> = [];
  const re = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path))) {
    if (m[1] !== undefined) segments.push(Number(m[1]));
    else if (m[2] !== undefined) segments.push(JSON.parse(m[2]) as string);
    else if (m[3] !== undefined) segments.push(m[3]);
  }
  return segments;
}

export function parseText(text: string): ParsedText {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const problems: LineProblem[] = doc.errors.map((e) => {
    const pos = e.linePos?.[0];
    return { field: "", message: e.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, ""), at: pos ? { line: pos.line, column: pos.col } : undefined };
  });
  const place = (offset: number) => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const locate = (violations: Violation[]): LineProblem[] =>
    violations.map((v) => {
      let node: Node | null | undefined = doc.contents as Node | null;
      let found: Node | undefined = node ?? undefined;
      for (const segment of pathSegments(v.field)) {
        if (!node || !isCollection(node)) break;
        const next = node.get(segment, true) as Node | undefined;
        if (!next) {
          // A missing member: point at the key's parent, or at the pair whose key is named.
          break;
        }
        node = next;
        found = next;
      }
      if (!found?.range) return { ...v };
      const at = place(found.range[0]);
      // A violation inside a text block (a dbt schema in `specification: |`) has its own line.
      if (v.line !== undefined && isScalar(found) && typeof found.value === "string" && (found.type === "BLOCK_LITERAL" || found.type === "BLOCK_FOLDED")) {
        return { ...v, at: { line: at.line + v.line, column: v.column ?? 1 } };
      }
      return { ...v, at };
    });
  return { value: problems.length ? undefined : doc.toJS({ maxAliasCount: 100 }), problems, locate };
}

export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
