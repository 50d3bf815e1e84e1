import type { Violation } from "./violation.js";

/**
 * Server violations in words a person can act on. The server's messages come from its schema
 * validator ("must NOT have fewer than 1 characters"); the field they name is shown beside them.
 */

/** The id rule exactly as the server enforces it (src/platform/http/shapes.ts ResourceId). */
export const ID_RULE = "1 to 256 characters, anything but a slash (/); it cannot change later.";

/** Checks an id as the server does: 1–256 characters (code points), no slash, no NUL character. */
export function idProblem(id: string): string | undefined {
  const length = [...id].length;
  if (length === 0) return "Choose an id.";
  if (length > 256) return `An id can have at most 256 characters; this one has ${length}.`;
  if (id.includes("/")) return "An id cannot contain a slash (/).";
  if (id.includes("\u0000")) return "An id cannot contain the NUL character.";
  return undefined;
}

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  integer: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a group of named values",
  null: "empty",
};

const FORMAT_WORDS: Record<string, string> = {
  email: "an email address, like name@example.com",
  "date-time": "a date and time, like 2026-11-21T10:00:00Z",
  date: "a date, like 2026-11-21",
  uri: "a web address, like https://example.com",
  uuid: "a UUID",
};

const RULES: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^must NOT have fewer than 1 characters?$/, () => "cannot be empty."],
  [/^must NOT have fewer than (\d+) characters$/, (m) => `needs at least ${m[1]} characters.`],
  [/^must NOT have more than (\d+) characters$/, (m) => `can have at most ${m[1]} characters.`],
  [/^must NOT have fewer than 1 items$/, () => "needs at least one entry."],
  [/^must NOT have fewer than (\d+) items$/, (m) => `needs at least ${m[1]} entries.`],
  [/^must NOT have more than (\d+) items$/, (m) => `can have at most ${m[1]} entries.`],
  [/^must match pattern "\^\[\^\/\\u0000\]\+\$"$/, () => "cannot contain a slash (/)."],
  [/^must match pattern "\^\[\^\\u0000\]\*\$"$/, () => "cannot contain the NUL character."],
  [/^must match pattern "(.*)"$/, (m) => `is not in the expected form (${m[1]}).`],
  [/^must have required property '(.+)'$/, () => "is required."],
  [/^is required$/, () => "is required."],
  [/^must be (string|number|integer|boolean|array|object|null)$/, (m) => `must be ${TYPE_WORDS[m[1]]}.`],
  [/^must be (\w+),(\w+)$/, (m) => `must be ${TYPE_WORDS[m[1]] ?? m[1]} or ${TYPE_WORDS[m[2]] ?? m[2]}.`],
  [/^must match format "(.+)"$/, (m) => `must be ${FORMAT_WORDS[m[1]] ?? `in ${m[1]} format`}.`],
  [/^must NOT have additional properties$/, () => "is not allowed here by the standard; put your own fields under customProperties."],
  [/^must be one of: (.+)$/, (m) => `must be one of ${m[1].split(", ").join(", ")}.`],
  [/^must be equal to one of the allowed values$/, () => "is not one of the allowed values."],
  [/^must be equal to constant$/, () => "must have the exact value the standard names."],
  [/^must match (exactly one|a) schema in (oneOf|anyOf)$/, () => "does not match any of the forms allowed here."],
  [/^must be (>=|>|<=|<) (.+)$/, (m) => `must be ${{ ">=": "at least", ">": "more than", "<=": "at most", "<": "less than" }[m[1]]} ${m[2]}.`],
];

/** The validator's phrase ("must be string") in words ("must be text."); undefined for messages that are already sentences. */
function predicate(message: string): string | undefined {
  const trimmed = message.trim();
  for (const [pattern, words] of RULES) {
    const m = pattern.exec(trimmed);
    if (m) return words(m);
  }
  return undefined;
}

const fullStop = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

/** A server message as words that follow a field's name: "cannot be empty.", "must be text.". */
export function sentence(message: string): string {
  return predicate(message) ?? fullStop(message.trim());
}

const capital = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** "info.title: cannot be empty." → "Title cannot be empty." given the form's labels. */
export function describeViolation(v: Violation, labels: Record<string, string> = {}): string {
  const label = labelFor(v.field, labels);
  const words = predicate(v.message);
  const where = label ?? (v.field && v.field !== "body" ? v.field : "");
  if (words) return where ? `${where} ${words}` : capital(words);
  // The server's own sentences (schema parsers, business rules) stand after the field's name.
  const text = capital(fullStop(v.message.trim()));
  return where ? `${where}: ${text}` : text;
}

/** The label for a field path; `outputPorts[].id` in `labels` stands for every port's id. */
export function labelFor(field: string, labels: Record<string, string>): string | undefined {
  if (labels[field]) return labels[field];
  const general = field.replace(/\[\d+\]/g, "[]");
  return labels[general];
}

/** Splits violations into those a form shows at its fields (by the server's path) and the rest. */
export function atFields(violations: Violation[], labels: Record<string, string>): { byField: Record<string, string>; rest: Violation[] } {
  const byField: Record<string, string> = {};
  const rest: Violation[] = [];
  for (const v of violations) {
    const label = labelFor(v.field, labels);
    if (label && !byField[v.field]) byField[v.field] = describeViolation(v, labels);
    else rest.push(v);
  }
  return { byField, rest };
}
