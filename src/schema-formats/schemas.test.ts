/**
 * Runs every fixture under test/fixtures/schemas/<kind>/{valid,invalid}/ through parseSchema.
 * Valid fixtures assert model names and a few field facts; invalid ones assert the exact list of
 * violation fields and positions (messages only have to be non-empty).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseSchema } from "./index.js";
import type { NormalizedField, NormalizedModel } from "./index.js";

const root = fileURLToPath(new URL("../../test/fixtures/schemas/", import.meta.url));

interface ModelExpectation {
  name: string;
  kind?: string;
  description?: string;
  tests?: string[];
  /** Top-level field names, in order. */
  fields?: string[];
  fieldCount?: number;
  /** Field path (`a.b`, `[]` for array items / map values) → properties the field must have. */
  facts?: Record<string, Partial<NormalizedField>>;
}

interface Fixture {
  description: string;
  schema: { type: string; specification: unknown };
  expect: {
    detectedType?: string;
    models?: ModelExpectation[];
    violations?: Array<{ field: string; line?: number; column?: number }>;
  };
}

/** Follows a path through nested fields; a field that refers to a definition continues there. */
function findField(model: NormalizedModel, path: string, definitions: NormalizedField[] = []): NormalizedField | undefined {
  const described = (f: NormalizedField | undefined) => (f?.ref === undefined ? f : definitions.find((d) => d.name === f.ref));
  let fields: NormalizedField[] | undefined = model.fields;
  let current: NormalizedField | undefined;
  for (const segment of path.split(".")) {
    if (segment === "[]") current = described(current)?.items;
    else current = fields?.find((f) => f.name === segment);
    if (!current) return undefined;
    fields = described(current)?.fields;
  }
  return current;
}

const kinds = readdirSync(root).filter((k) => !k.startsWith("."));

describe.each(kinds)("%s fixtures", (kind) => {
  for (const validity of ["valid", "invalid"] as const) {
    const dir = join(root, kind, validity);
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));

    it(`has at least 8 ${validity} fixtures`, () => {
      expect(files.length).toBeGreaterThanOrEqual(8);
    });

    it.each(files)(`${validity}/%s`, (file) => {
      const fixture = JSON.parse(readFileSync(join(dir, file), "utf8")) as Fixture;
      const result = parseSchema(fixture.schema, "schema[0]");
      if (validity === "valid") {
        if (!result.ok) expect.fail(`expected valid, got ${JSON.stringify(result.violations, null, 2)}`);
        if (fixture.expect.detectedType) expect(result.detectedType).toBe(fixture.expect.detectedType);
        const expected = fixture.expect.models ?? [];
        expect(result.models.map((m) => m.name)).toEqual(expected.map((m) => m.name));
        expected.forEach((want, i) => {
          const model = result.models[i];
          if (want.kind) expect(model.kind).toBe(want.kind);
          if (want.description !== undefined) expect(model.description).toBe(want.description);
          if (want.tests) expect(model.tests).toEqual(want.tests);
          if (want.fields) expect(model.fields.map((f) => f.name)).toEqual(want.fields);
          if (want.fieldCount !== undefined) expect(model.fields).toHaveLength(want.fieldCount);
          for (const [path, facts] of Object.entries(want.facts ?? {})) {
            const field = findField(model, path, result.definitions);
            expect(field, `${model.name}: field ${path}`).toBeDefined();
            expect(field, `${model.name}: field ${path}`).toMatchObject(facts);
          }
        });
      } else {
        if (result.ok) expect.fail("expected violations, got a valid result");
        const got = result.violations.map(({ field, line, column }) =>
          line === undefined ? { field } : { field, line, column },
        );
        expect(got).toEqual(fixture.expect.violations);
        for (const v of result.violations) expect(v.message).toMatch(/\S/);
        // Text specifications locate every violation; values never do.
        const isText = typeof fixture.schema.specification === "string";
        for (const v of result.violations) {
          expect(v.line !== undefined, `${v.field} position`).toBe(isText);
          if (isText) expect(v.column).toBeGreaterThan(0);
        }
      }
    });
  }
});
