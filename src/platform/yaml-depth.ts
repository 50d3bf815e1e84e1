/**
 * YAML parsed with a bound on nesting. The `yaml` library turns text into a syntax tree without
 * recursion, but composes that tree into nodes recursively, a few stack frames per level: a body
 * that is only brackets (or `- - - …`) would run the stack to its end, and V8 may then die of a
 * fatal error in whatever it happens to be compiling there (a regular expression, for one), which
 * no `try` can catch. So each document's syntax tree is measured, iteratively, before it is
 * composed. JSON text is YAML too: specifications sent as JSON text are located this way.
 */
import { Composer, Parser, YAMLParseError, type CST, type Document, type DocumentOptions, type LineCounter, type ParseOptions, type SchemaOptions } from "yaml";

/** A document nests collections deeper than its reader allows. */
export class NestingTooDeep extends Error {
  constructor(readonly limit: number) {
    super(`collections are nested more than ${limit} levels deep`);
  }
}

/** Whether one top-level token of the syntax tree nests collections deeper than `limit`. */
function tokenNestsDeeperThan(token: CST.Token, limit: number): boolean {
  const stack: Array<[CST.Token | null | undefined, number]> = [[token, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (!current) continue;
    if (current.type === "document") {
      stack.push([current.value, depth]);
    } else if (current.type === "block-map" || current.type === "block-seq" || current.type === "flow-collection") {
      if (depth >= limit) return true;
      for (const item of current.items as CST.CollectionItem[]) {
        stack.push([item.key, depth + 1], [item.value, depth + 1]);
      }
    }
  }
  return false;
}

function* measured(tokens: Iterable<CST.Token>, limit: number): Generator<CST.Token> {
  for (const token of tokens) {
    if (tokenNestsDeeperThan(token, limit)) throw new NestingTooDeep(limit);
    yield token;
  }
}

type Options = ParseOptions & DocumentOptions & SchemaOptions & { lineCounter?: LineCounter };

/**
 * `parseDocument` of the `yaml` library (the first document; a second one is an error), refusing
 * with `NestingTooDeep` a document that nests collections more than `maxDepth` levels deep before
 * any of it is composed.
 */
export function parseBoundedDocument(text: string, options: Options, maxDepth: number): Document.Parsed {
  const parser = new Parser(options.lineCounter?.addNewLine);
  const composer = new Composer(options);
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(measured(parser.parse(text), maxDepth), true, text.length)) {
    if (!doc) {
      doc = next;
    } else {
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], "MULTIPLE_DOCS", "Source contains multiple documents"));
      break;
    }
  }
  return doc!;
}
