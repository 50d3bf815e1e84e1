/**
 * JSON request bodies (docs/product.md §3: malformed JSON is a 400). Besides what `JSON.parse`
 * refuses, a body is malformed when it is not UTF-8 (RFC 8259 §8.1; decoding would replace the
 * bytes and store the replacement), when it is empty where the operation needs a document, when
 * it nests deeper than any document may (every later step walks it recursively), and when it holds
 * a number beyond JSON's range, which would be stored as null.
 */
import { isUtf8 } from "node:buffer";
import type { FastifyRequest } from "fastify";
import { badRequest } from "../errors.js";
import { bodyTooDeep, MAX_JSON_DEPTH, scanJsonText } from "../json-depth.js";
import { firstNonJsonMember, nonJsonMemberProblem } from "../json-values.js";
import { parseJsonInSlices } from "../json-slices.js";
import type { App } from "./types.js";

/**
 * Bodies up to this many characters are parsed at once; bigger ones in slices of `SLICE_CHARS`,
 * giving way to other requests every `SLICE_BUDGET_MS` (`../json-slices.ts`).
 */
export const JSON_IN_PLACE_CHARS = 256 * 1024;
const SLICE_CHARS = 16 * 1024;
const SLICE_BUDGET_MS = 10;

/**
 * The text of a body, or a 400 when its bytes are not UTF-8. Null for a body of white space alone:
 * action endpoints whose body is optional (their schema accepts null) take it as no body at all,
 * any other operation that takes a body answers 400.
 */
export function bodyText(request: FastifyRequest, body: Buffer): string | null {
  if (!isUtf8(body)) throw badRequest("The request body is not valid UTF-8 text.");
  const text = body.toString("utf8");
  if (text.trim() !== "") return text;
  if (takesEmptyBody(request)) return null;
  throw badRequest("The request body is empty; this operation takes a document.");
}

/** Whether the route takes no body, or a body whose schema accepts null (an optional body). */
function takesEmptyBody(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema?.body as Record<string, unknown> | undefined;
  if (schema === undefined) return true;
  const acceptsNull = (s: unknown): boolean => {
    const type = (s as { type?: unknown } | null)?.type;
    return type === "null" || (Array.isArray(type) && type.includes("null"));
  };
  return acceptsNull(schema) || [schema.anyOf, schema.oneOf].some((branches) => Array.isArray(branches) && branches.some(acceptsNull));
}

/** A 400 naming the first member JSON cannot carry, if the parsed body has one. */
export function refuseNonJsonMember(value: unknown): void {
  const strange = firstNonJsonMember(value);
  if (strange) throw nonJsonMemberProblem(strange);
}

/** Registers the parser of `application/json` and `application/*+json` bodies. */
export function registerJsonBodies(app: App): void {
  const json = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  for (const type of ["application/json", /^application\/[\w.-]+\+json$/]) {
    app.addContentTypeParser(type, { parseAs: "buffer" }, (request, body, done) => {
      let text: string | null;
      try {
        text = bodyText(request, body as Buffer);
      } catch (error) {
        return done(error as Error, undefined);
      }
      if (text === null) return done(null, null);
      const scan = scanJsonText(text, MAX_JSON_DEPTH);
      if (scan.tooDeep) {
        return done(bodyTooDeep(), undefined);
      }
      if (text.length > JSON_IN_PLACE_CHARS) {
        // The default parser, slice by slice: the same errors, and the same refusal of prototype poisoning.
        const parse = (slice: string) => {
          let failure: Error | null = null;
          let value: unknown;
          json(request, slice, (error, parsed) => ((failure = error), (value = parsed)));
          if (failure) throw failure;
          return value;
        };
        const invalid = () => {
          let failure: Error | null = null;
          json(request, "\u0000", (error) => (failure = error));
          return failure ?? badRequest("The request body is not valid JSON.");
        };
        parseJsonInSlices(text, { sliceChars: SLICE_CHARS, budgetMs: SLICE_BUDGET_MS, parse, invalid })
          .then((value) => {
            if (scan.mayHoldHugeNumber) refuseNonJsonMember(value);
            return value;
          })
          .then((value) => done(null, value), (error: Error) => done(error, undefined));
        return;
      }
      // Only text with a number of a long exponent or digit run can hold one out of range: others skip the walk.
      if (!scan.mayHoldHugeNumber) return json(request, text, done);
      json(request, text, (error, value) => {
        if (error) return done(error, undefined);
        try {
          refuseNonJsonMember(value);
        } catch (problem) {
          return done(problem as Error, undefined);
        }
        done(null, value);
      });
    });
  }
}
