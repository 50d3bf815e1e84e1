import { sql, type Expression, type RawBuilder } from "kysely";

/**
 * LIKE reads `%` and `_` in the pattern as wildcards, so text a person typed must be escaped to
 * match only itself. The escape character is declared with ESCAPE on every LIKE: PostgreSQL
 * defaults to `\` but SQLite has no default at all, where an escaped pattern silently matches
 * nothing.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `value LIKE '%text%'`, with `text` matched literally on both databases. */
export function containsText(value: Expression<string>, text: string): RawBuilder<boolean> {
  return sql<boolean>`${value} like ${`%${escapeLike(text)}%`} escape '\\'`;
}
