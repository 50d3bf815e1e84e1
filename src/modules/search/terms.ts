/**
 * What a person typed, as the terms a full-text index can match: words of letters, digits and
 * underscores (`rcvr_id`), each matched as a prefix, all of them required. Anything else the
 * query holds (quotes, operators, the index's own syntax) only separates words, so no query can
 * reach the index's query language. At most MAX_TERMS terms of MAX_TERM_LENGTH characters.
 */
export const MAX_TERMS = 10;
export const MAX_TERM_LENGTH = 64;

export function searchTerms(query: string): string[] {
  const words = query.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words.map((w) => w.slice(0, MAX_TERM_LENGTH)))].slice(0, MAX_TERMS);
}

/** FTS5: each term a quoted prefix phrase (`"rcvr_id"*`); the unicode61 tokenizer splits it as the index did. */
export function sqliteMatch(terms: string[]): string {
  return terms.map((t) => `"${t}"*`).join(" ");
}

/**
 * PostgreSQL: each term a quoted prefix, all required. The index splits words at underscores, so
 * a term with one is the phrase of its parts with the last a prefix (`'rcvr' <-> 'id':*`), as
 * FTS5 reads `"rcvr_id"*`: a name then costs the index the entries of its own rare last part, not
 * every word that starts as its first part does (`orders_0004821` in a catalog of `orders_…`).
 */
export function postgresQuery(terms: string[]): string {
  return terms
    .map((t) => {
      const parts = t.split("_").filter((p) => p !== "");
      if (parts.length === 0) return `'${t}':*`;
      return parts.map((p, i) => (i === parts.length - 1 ? `'${p}':*` : `'${p}'`)).join(" <-> ");
    })
    .join(" & ");
}
