/**
 * A list page within a byte limit (PAGE_LIMIT_BYTES, docs/product.md §1/§3): of the page's rows, given
 * with the size of what each would send, those that fit the budget, at least one. Repositories
 * read the sizes first and load only these rows, so rows past the budget are never read.
 */
export function withinByteBudget(sizes: ReadonlyArray<{ row_id: number | string; bytes: number | string | null }>, maxBytes: number): { rowIds: number[]; cut: boolean } {
  const rowIds: number[] = [];
  let total = 0;
  for (const { row_id, bytes } of sizes) {
    const size = Number(bytes ?? 0);
    if (rowIds.length > 0 && total + size > maxBytes) break;
    rowIds.push(Number(row_id));
    total += size;
  }
  return { rowIds, cut: rowIds.length < sizes.length };
}

/**
 * The rows loaded by `where row_id in (…)`, which the databases answer in any order, put back in
 * the order of `rowIds` (the page's order).
 */
export function inRowIdOrder<R extends { row_id: number | string }>(rows: R[], rowIds: number[]): R[] {
  const position = new Map(rowIds.map((rowId, i) => [rowId, i]));
  return rows.sort((a, b) => position.get(Number(a.row_id))! - position.get(Number(b.row_id))!);
}

/** The page's rows that fit the budget (`withinByteBudget`), loaded by `load` and put back in the page's order. */
export async function loadWithinBudget<R extends { row_id: number | string }>(
  sizes: ReadonlyArray<{ row_id: number | string; bytes: number | string | null }>,
  maxBytes: number,
  load: (rowIds: number[]) => Promise<R[]>,
): Promise<{ rows: R[]; cut: boolean }> {
  const { rowIds, cut } = withinByteBudget(sizes, maxBytes);
  if (rowIds.length === 0) return { rows: [], cut: false };
  return { rows: inRowIdOrder(await load(rowIds), rowIds), cut };
}
