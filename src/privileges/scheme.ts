/**
 * Classification schemes: an ordered list of levels, lowest first. Until an organization can
 * define its own scheme, every plan uses the default one (docs/consumers.md, "The privileges plan").
 */
export interface ClassificationScheme {
  name: string;
  /** Lowest first: a ceiling at a level lets that level and every level before it through. */
  levels: readonly string[];
}

export const DEFAULT_SCHEME: ClassificationScheme = Object.freeze({
  name: "default",
  levels: Object.freeze(["public", "internal", "confidential", "restricted"]),
});

/** The level's position in the scheme (letter case ignored), or `undefined` when the scheme has no such level. */
export function levelOf(scheme: ClassificationScheme, classification: string): number | undefined {
  const wanted = classification.trim().toLowerCase();
  const index = scheme.levels.findIndex((level) => level.toLowerCase() === wanted);
  return index === -1 ? undefined : index;
}
