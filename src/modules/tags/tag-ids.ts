/**
 * What a tag id may be (docs/security.md, "Tags"): rules as data, each refusal naming its rule.
 * Ids are compared in Unicode normalization form NFC, so `é` typed as one character or as `e` and
 * a combining accent is one tag; anything that would let two different ids look the same to a
 * reader, or look like a path step, is refused.
 */

export interface TagIdRule {
  rule: string;
  /** True when the id (already NFC) breaks the rule. */
  breaks(id: string): boolean;
}

/** Scripts whose letters are easily taken for one another's; a segment mixing them is refused. */
const CONFUSABLE_SCRIPTS: ReadonlyArray<[string, RegExp]> = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
];

/** The confusable scripts whose letters appear in `segment`. */
export function scriptsOf(segment: string): string[] {
  return CONFUSABLE_SCRIPTS.filter(([, letter]) => [...segment].some((c) => letter.test(c))).map(([name]) => name);
}

export const TAG_ID_RULES: readonly TagIdRule[] = [
  { rule: "no segment of a tag id is `.` or `..`", breaks: (id) => id.split("/").some((s) => s === "." || s === "..") },
  {
    rule: "tag ids use no compatibility characters (fullwidth or styled letters, ligatures): each must be written as the plain character it looks like (NFKC)",
    breaks: (id) => id.normalize("NFKC") !== id,
  },
  {
    rule: "a segment of a tag id does not mix letters of Latin, Cyrillic and Greek, which look alike",
    breaks: (id) => id.split("/").some((s) => scriptsOf(s).length > 1),
  },
];

/** The id as Steward stores and compares it. */
export function normalizeTagId(id: string): string {
  return id.normalize("NFC");
}

/** The rules `id` breaks, in words ("rule: …"); empty when it is a good tag id. */
export function tagIdViolations(id: string): string[] {
  const nfc = normalizeTagId(id);
  return TAG_ID_RULES.filter((r) => r.breaks(nfc)).map((r) => `is refused (rule: ${r.rule})`);
}
