import { expect } from "vitest";
import { referenceComponentViolations, referenceViolations } from "./reference.js";
import { expectValid, officialSchema } from "./standards.js";
import type { StandardsCheck } from "./checks.js";

/** The checks of the conformance suite (it reads STANDARDS_DIR): see test/helpers/checks.ts. */
export const STANDARDS: StandardsCheck = {
  label: ", against the official standards",
  answer(method, template, status, body) {
    expect(referenceViolations(method, template, status, body), `${method} ${template} ${status}`).toEqual([]);
  },
  eventData(kind, data) {
    expect(referenceComponentViolations(kind, data), kind).toEqual([]);
  },
  valid(schemaFile, doc) {
    expectValid(schemaFile, doc);
  },
  invalid(schemaFile, doc) {
    expect(officialSchema(schemaFile)(doc), `${schemaFile} accepts what it should refuse`).toBe(false);
  },
};
