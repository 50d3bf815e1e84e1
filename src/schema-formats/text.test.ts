import { describe, expect, it } from "vitest";
import { findJsonError, joinPath, lineColumnAt, loadJson, renderPath } from "./text.js";
import { loadYaml } from "./yaml-text.js";
import { parseSpecification } from "./index.js";

describe("paths", () => {
  it("uses brackets for indexes, dots for keys, and quotes odd keys", () => {
    expect(renderPath("schema[0].specification", ["models", 1, "columns", 0, "data_type"])).toBe(
      "schema[0].specification.models[1].columns[0].data_type",
    );
    expect(joinPath("p", "$ref")).toBe("p.$ref");
    expect(joinPath("p", "My Column")).toBe('p["My Column"]');
    expect(joinPath("p", "a.b")).toBe('p["a.b"]');
    expect(joinPath("", "type")).toBe("type");
  });
});

describe("positions", () => {
  it("maps offsets to 1-based line and column", () => {
    expect(lineColumnAt("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnAt("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });

  it("finds JSON syntax errors", () => {
    expect(findJsonError('{"a": }').offset).toBe(6);
    expect(findJsonError("[1,2,]").offset).toBe(5);
    expect(findJsonError('{"a":1} x').message).toMatch(/after/);
    expect(findJsonError('{"a": "b').message).toMatch(/unterminated/);
    expect(findJsonError("[01]").offset).toBe(2);
    expect(findJsonError("[" + "[".repeat(100_000)).message).toMatch(/end of input/);
  });

  it("locates nodes of JSON and YAML text, falling back to the nearest ancestor", () => {
    const json = loadJson('{\n  "a": [\n    {"b": 1}\n  ]\n}');
    if (!json.ok) throw new Error("load");
    expect(json.source.locate(["a", 0, "b"])).toEqual({ line: 3, column: 11 });
    expect(json.source.locate(["a", 0, "missing"])).toEqual({ line: 3, column: 5 });
    const yaml = loadYaml("a:\n  - b: 1\n    c: x\n");
    if (!yaml.ok) throw new Error("load");
    expect(yaml.source.locate(["a", 0, "c"])).toEqual({ line: 3, column: 8 });
    expect(loadJson({ a: 1 }).ok && (loadJson({ a: 1 }) as { ok: true; source: { locate: (p: string[]) => unknown } }).source.locate(["a"])).toBeUndefined();
  });

  it("reports syntax errors with positions", () => {
    expect(loadJson('{\n  "a": 1,\n}')).toEqual({ ok: false, violation: expect.objectContaining({ line: 3, column: 1 }) });
    expect(loadYaml("a: 1\na: 2\n")).toEqual({ ok: false, violation: expect.objectContaining({ line: 2, column: 1 }) });
  });
});

describe("hostile specifications", () => {
  // Arrays and objects alternately, as in a BigQuery field list: JSON that the YAML parser, used
  // to locate violations, would have recursed through to the end of the stack.
  const brackets = (depth: number) => `${'[{"name":"a","type":"RECORD","fields":'.repeat(depth)}{"name":"x"}${"}]".repeat(depth)}`;

  it("refuses JSON text nested deeper than the limit before parsing it, whatever the parser", () => {
    for (const type of ["bigquery", "jsonschema", "avro", "dbt"] as const) {
      const result = parseSpecification(type, brackets(300), "specification");
      expect(result).toEqual({ ok: false, violations: [{ field: "specification", message: expect.stringMatching(/nested more than 128 levels deep, the limit for a specification$/) }] });
    }
    expect(loadJson(brackets(60)).ok).toBe(true);
  });

  it("refuses a specification value nested deeper than the limit", () => {
    let value: unknown = "x";
    for (let i = 0; i < 150; i++) value = [value];
    expect(loadJson(value)).toMatchObject({ ok: false, violation: { message: expect.stringContaining("nested more than 128 levels") } });
    expect(loadYaml(value)).toMatchObject({ ok: false, violation: { message: expect.stringContaining("nested more than 128 levels") } });
  });

  it("names a number out of JSON's range instead of reading it as infinity", () => {
    const result = parseSpecification("bigquery", '[{"name": "a", "type": "STRING",\n  "x": 1e999}]', "specification");
    expect(result).toEqual({
      ok: false,
      violations: [{ field: "specification[0].x", message: expect.stringContaining("is not a finite number"), line: 2, column: 8 }],
    });
    expect(loadJson('[{"note": "e999 and 1e999 in a string"}, 1e308]').ok).toBe(true);
  });
});

