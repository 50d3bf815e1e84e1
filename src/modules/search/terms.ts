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

/** The most words a PostgreSQL prefix is turned into; a prefix more words start with stays a prefix. */
export const MAX_PREFIX_WORDS = 32;

const PLAIN_WORD = /^[\p{L}\p{N}]+$/u;

/** A term's parts as the index splits it, at underscores. */
function partsOf(term: string): string[] {
  return term.split("_").filter((p) => p !== "");
}

/** The prefixes of a PostgreSQL query that may be turned into words: each term's last part, when a plain word. */
export function postgresPrefixes(terms: string[]): string[] {
  return [...new Set(terms.map((t) => partsOf(t).at(-1)).filter((p): p is string => p !== undefined && PLAIN_WORD.test(p)))];
}

/** The first text after every text that starts with `prefix`, in code point (and UTF-8 byte) order. */
export function afterPrefix(prefix: string): string {
  const chars = [...prefix];
  const last = chars.pop()!.codePointAt(0)!;
  return chars.join("") + String.fromCodePoint(last + 1);
}

/** Whether the words found for a prefix may stand for it: few enough, and each one plain. */
export function usableWords(words: string[]): boolean {
  return words.length <= MAX_PREFIX_WORDS && words.every((w) => PLAIN_WORD.test(w));
}

/**
 * PostgreSQL: each term a quoted prefix, all required. The index splits words at underscores, so
 * a term with one is the phrase of its parts with the last a prefix (`'rcvr' <-> 'id':*`), as
 * FTS5 reads `"rcvr_id"*`: a name then costs the index the entries of its own rare last part, not
 * every word that starts as its first part does (`orders_0004821` in a catalog of `orders_…`).
 * A last part found in `words` is the words that start with it instead (`('zone7x' | 'zone7xl')`),
 * the same matches, which GIN finds without gathering a prefix's; `words` never holds an empty list.
 */
export function postgresQuery(terms: string[], words: ReadonlyMap<string, string[]> = new Map()): string {
  return terms
    .map((t) => {
      const parts = partsOf(t);
      if (parts.length === 0) return `'${t}':*`;
      return parts
        .map((p, i) => {
          if (i < parts.length - 1) return `'${p}'`;
          const found = words.get(p);
          if (found === undefined) return `'${p}':*`;
          return found.length === 1 ? `'${found[0]}'` : `(${found.map((w) => `'${w}'`).join(" | ")})`;
        })
        .join(" <-> ");
    })
    .join(" & ");
}
