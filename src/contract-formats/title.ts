/**
 * How a data contract is titled wherever it is named — its page, the activity list, pickers
 * (docs/formats.md): its `name` (ODCS) or `info.title` (Data Contract Specification), else its
 * data product and the business name of its schema, else its id. Pure and free of Node, so the
 * web app uses this same function.
 */

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The first business name among a contract's ODCS schema objects. */
function businessName(schema: unknown): string | undefined {
  if (!Array.isArray(schema)) return undefined;
  for (const object of schema) {
    const name = text(record(object)?.businessName);
    if (name !== undefined) return name;
  }
  return undefined;
}

export function contractTitle(doc: Record<string, unknown>, id: string = String(doc.id ?? "")): string {
  const named = text(doc.name) ?? text(record(doc.info)?.title);
  if (named !== undefined) return named;
  const parts = [text(doc.dataProduct), businessName(doc.schema)].filter((p): p is string => p !== undefined);
  return parts.length > 0 ? parts.join(" — ") : id;
}
