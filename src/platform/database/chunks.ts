/**
 * Values per `in (…)` list: SQLite binds at most 32,766 parameters in one statement, PostgreSQL
 * 65,535, and a document may name more ids than that (a product with many ports).
 */
export const IN_LIST_CHUNK = 500;

/** `items` in consecutive slices of at most `size`. */
export function chunked<T>(items: readonly T[], size = IN_LIST_CHUNK): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < items.length; start += size) slices.push(items.slice(start, start + size));
  return slices;
}
