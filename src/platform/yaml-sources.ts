/**
 * The text a YAML body was parsed from, held by the parsed document (weakly, as long as the
 * document lives): a data contract keeps its YAML as written (docs/formats.md).
 */
const sources = new WeakMap<object, string>();

/** Remembers that `value` was parsed from `text`. */
export function keepText<T>(value: T, text: string): T {
  if (typeof value === "object" && value !== null) sources.set(value, text);
  return value;
}

/** The YAML text `value` was parsed from, when it came as a YAML body. */
export function yamlSourceOf(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? sources.get(value) : undefined;
}

/** `copy` (a document made from a YAML body, its id added) was written as `original` was. */
export function keepYamlSource<T>(original: unknown, copy: T): T {
  const text = yamlSourceOf(original);
  return text === undefined ? copy : keepText(copy, text);
}
