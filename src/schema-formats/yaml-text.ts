/**
 * YAML specifications (JSON text included: JSON is YAML 1.2), parsed once into a document that
 * keeps every node's position, so violations are located without parsing the text again.
 *
 * Aliases are checked before the document becomes a value: an alias stands for a copy of the
 * node it names, so a few lines of anchors and aliases can stand for an enormous value. Steward
 * counts the nodes the value would have and refuses a document whose aliases more than double it.
 */
import { LineCounter, isAlias, isMap, isPair, isSeq } from "yaml";
import type { Document } from "yaml";
import { NestingTooDeep, parseBoundedDocument } from "../platform/yaml-depth.js";
import { MAX_DEPTH, SpecSource, lineColumnAt, loaded, textOf, tooDeep, type LoadResult } from "./text.js";

/** Aliases may add at most this many nodes beyond the size of the text's own nodes... */
const ALIAS_ALLOWANCE = 10_000;
/** ...or this many times the text's own nodes, whichever is more. */
const ALIAS_FACTOR = 2;

/** The node count of the value, aliases expanded, and of the text as written. */
function sizes(doc: Document.Parsed): { written: number; expanded: number } {
  // Anchors are defined before their aliases, so walking in document order knows every size.
  const anchored = new Map<string, number>();
  let written = 0;
  const stack: Array<{ node: unknown; children?: unknown[]; next: number; size: number; anchor?: string }> = [];
  const open = (node: unknown): number | undefined => {
    written++;
    if (isAlias(node)) return anchored.get(node.source) ?? 1;
    const anchor = (node as { anchor?: string } | null)?.anchor;
    if (isMap(node) || isSeq(node)) {
      const children: unknown[] = [];
      for (const item of node.items as unknown[]) {
        if (isPair(item)) children.push(item.key, item.value);
        else children.push(item);
      }
      stack.push({ node, children, next: 0, size: 1, anchor });
      return undefined;
    }
    if (anchor !== undefined) anchored.set(anchor, 1);
    return 1;
  };
  let result = open(doc.contents);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (result !== undefined) {
      top.size += result;
      result = undefined;
    }
    if (top.next < top.children!.length) {
      const child = top.children![top.next++];
      if (child === null || child === undefined) continue;
      result = open(child);
      continue;
    }
    stack.pop();
    if (top.anchor !== undefined) anchored.set(top.anchor, top.size);
    result = top.size;
  }
  return { written, expanded: result ?? 0 };
}

/** YAML text (JSON text included) or an already-parsed value. */
export function loadYaml(specification: unknown): LoadResult {
  if (typeof specification !== "string") {
    return loaded(new SpecSource(specification), "the specification");
  }
  const t = textOf(specification);
  if ("error" in t) return { ok: false, violation: { message: t.error } };
  try {
    const lines = new LineCounter();
    // Merge keys (`<<: *defaults`) as dbt's own YAML loader reads them. Nesting, flow or block,
    // is measured before the recursive part of the parse.
    const doc = parseBoundedDocument(t.text, { lineCounter: lines, prettyErrors: false, merge: true }, MAX_DEPTH);
    const error = doc.errors[0];
    if (error) {
      const { line, column } = lineColumnAt(t.text, error.pos?.[0] ?? 0);
      return { ok: false, violation: { message: `invalid YAML: ${error.message.split("\n")[0]}`, line, column } };
    }
    const { written, expanded } = sizes(doc);
    if (expanded > Math.max(ALIAS_FACTOR * written, written + ALIAS_ALLOWANCE)) {
      return {
        ok: false,
        violation: {
          message: `invalid YAML: its aliases expand ${written} nodes into ${expanded}; Steward refuses aliases that more than double a document (at most ${ALIAS_ALLOWANCE} extra nodes)`,
        },
      };
    }
    const value: unknown = doc.toJS({ maxAliasCount: -1 });
    // Aliases can nest what the text does not; YAML's own types are no JSON.
    return loaded(new SpecSource(value, t.text, { doc, lines }), "invalid YAML");
  } catch (error) {
    if (error instanceof NestingTooDeep) return { ok: false, violation: tooDeep("invalid YAML") };
    // Anything else is still a problem with the input.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, violation: { message: `invalid YAML: ${message}` } };
  }
}

