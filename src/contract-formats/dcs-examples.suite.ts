import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { fixturePath } from "../../test/helpers/fixtures.js";
import type { StandardsCheck } from "../../test/helpers/checks.js";
import { contractFormatOf } from "./index.js";
import { liftTo32 } from "./odcs-lift.js";

const DIR = fixturePath("dcs-examples");
const EXAMPLES = readdirSync(DIR).filter((f) => f.endsWith(".yaml")).sort();

/**
 * Every published example of the Data Contract Specification, converted to ODCS as
 * `?format=odcs` converts it: valid by Steward's own ODCS rules, and (with the standards' checks)
 * by the official ODCS 3.1.0 schema; and brought up to 3.2.0 (`odcsVersion=v3.2.0`), by 3.2.0's.
 */
export function dcsExampleTests(check: StandardsCheck): void {
  describe(`the Data Contract Specification's examples converted to ODCS${check.label}`, () => {
    it("are all there", () => {
      expect(EXAMPLES.length).toBeGreaterThanOrEqual(6);
    });

    it.each(EXAMPLES)("%s", (file) => {
      const doc = parse(readFileSync(resolve(DIR, file), "utf8")) as Record<string, unknown> & { id: string };
      const odcs = contractFormatOf(doc).toOdcs(doc);
      expect(odcs.apiVersion).toBe("v3.1.0");
      expect(contractFormatOf(odcs).validate(odcs)).toEqual([]);
      check.valid("odcs-json-schema-v3.1.0.json", odcs);
      const odcs32 = liftTo32(odcs);
      expect(contractFormatOf(odcs32).validate(odcs32)).toEqual([]);
      check.valid("odcs-json-schema-v3.2.0.json", odcs32);
    });
  });
}
