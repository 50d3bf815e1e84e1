/**
 * The words of a catalog document that search finds it by, beyond its id, title and description
 * (docs/product.md §14): the names, business names and descriptions of its models, fields,
 * properties and output ports, in every format — ODCS `schema[].properties[]`, DCS `models` and
 * `fields` (named by their keys), a schema's `specification` text (dbt, BigQuery, JSON Schema,
 * Avro) — so `rcvr_id` finds the contract with that column. Linear in the document and capped.
 */

/** Members whose string values are words of the document. */
const WORD_MEMBERS = new Set(["name", "title", "description", "businessName", "physicalName", "purpose", "usage", "limitations", "specification", "type"]);
/** Members whose object keys are names (DCS `models`, `fields`, `definitions`). */
const NAMED_MEMBERS = new Set(["models", "fields", "definitions"]);
/** Most characters of words taken from one document. */
export const MAX_DOCUMENT_WORDS = 64 * 1024;
/** Most values looked at in one document, whatever it holds. */
const MAX_VISITED = 200_000;

export function documentWords(doc: unknown, maxChars = MAX_DOCUMENT_WORDS): string[] {
  const words: string[] = [];
  let size = 0;
  let visited = 0;
  const add = (text: string) => {
    if (size >= maxChars) return;
    const piece = text.length > maxChars - size ? text.slice(0, maxChars - size) : text;
    words.push(piece);
    size += piece.length + 1;
  };
  const stack: unknown[] = [doc];
  while (stack.length > 0 && size < maxChars && visited < MAX_VISITED) {
    const value = stack.pop();
    visited++;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    } else if (value !== null && typeof value === "object") {
      for (const [key, member] of Object.entries(value)) {
        if (typeof member === "string") {
          if (WORD_MEMBERS.has(key)) add(member);
        } else if (member !== null && typeof member === "object") {
          if (NAMED_MEMBERS.has(key) && !Array.isArray(member)) for (const name of Object.keys(member)) add(name);
          stack.push(member);
        }
      }
    }
  }
  return words;
}
