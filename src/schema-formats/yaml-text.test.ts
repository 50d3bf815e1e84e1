import { describe, expect, it } from "vitest";
import { parseSchema } from "./index.js";
import { loadYaml } from "./yaml-text.js";

describe("YAML specifications", () => {
  it("refuses aliases that amplify a document (a wide node named many times)", () => {
    const big = Array.from({ length: 2000 }, (_, i) => `    c${i}: v`).join("\n");
    const uses = Array.from({ length: 90 }, (_, i) => `  u${i}: *big`).join("\n");
    const result = loadYaml(`defs:\n  big: &big\n${big}\nuses:\n${uses}\n`);
    expect(result).toMatchObject({ ok: false, violation: { message: expect.stringContaining("aliases expand") } });
  });

  it("refuses nested alias bombs before expanding them", () => {
    const lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 12; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(", ")}]`);
    const result = parseSchema({ type: "dbt", specification: lines.join("\n") }, "schema");
    expect(result).toMatchObject({ ok: false, violations: [{ field: "schema.specification", message: expect.stringContaining("aliases expand") }] });
  });

  it("keeps ordinary anchors and merge keys", () => {
    const spec = [
      "version: 2",
      "x-defaults: &text",
      "  data_type: text",
      "  tests: [not_null]",
      "models:",
      "  - name: orders",
      "    columns:",
      "      - name: id",
      "        <<: *text",
      "      - name: note",
      "        <<: *text",
    ].join("\n");
    const result = parseSchema({ type: "dbt", specification: spec }, "schema");
    expect(result).toMatchObject({ ok: true, models: [{ fields: [{ name: "id", physicalType: "text", tests: ["not_null"] }, { name: "note" }] }] });
  });

  it("refuses absurd flow nesting without exhausting the parser's stack", () => {
    const result = loadYaml("{".repeat(5000));
    expect(result).toMatchObject({ ok: false, violation: { message: expect.stringContaining("nested more than") } });
    // Brackets inside quotes and comments are text, not nesting.
    expect(loadYaml(`a: "${"[".repeat(500)}"\nb: '${"{".repeat(500)}' # ${"[".repeat(500)}\n`).ok).toBe(true);
  });

  it("refuses block nesting past the limit before composing the document", () => {
    for (const text of [`${"- ".repeat(3000)}x`, `a:\n${Array.from({ length: 300 }, (_, i) => `${" ".repeat(i + 1)}b:`).join("\n")} 1`]) {
      expect(loadYaml(text)).toMatchObject({ ok: false, violation: { message: expect.stringContaining("nested more than 128 levels deep") } });
    }
    expect(loadYaml(`${"- ".repeat(100)}x`).ok).toBe(true);
  });

  it("names values JSON cannot carry instead of changing them", () => {
    const cases: Array<[string, string, RegExp]> = [
      ["{limit: .inf}", "limit", /not a finite number/],
      ["{n: .nan}", "n", /not a finite number/],
      ["{b: !!binary aGVsbG8=}", "b", /binary/],
      ["{s: !!set {a, b}}", "s", /set/],
      ["{o: !!omap [a: 1]}", "o", /ordered map/],
      ["{t: !!timestamp 2001-12-14}", "t", /timestamp/],
    ];
    for (const [meta, member, message] of cases) {
      const specification = `version: 2\nmodels:\n  - name: m\n    meta: ${meta}\n`;
      expect(parseSchema({ type: "dbt", specification }, "s")).toMatchObject({ ok: false, violations: [{ field: `s.specification.models[0].meta.${member}`, message, line: 4 }] });
    }
  });

  it("locates violations from the one parse", () => {
    const result = parseSchema({ type: "dbt", specification: "version: 2\nmodels:\n  - name: m\n    columns:\n      - data_type: int\n" }, "s");
    expect(result).toMatchObject({ ok: false, violations: [{ field: "s.specification.models[0].columns[0].name", line: 5, column: 9 }] });
  });
});
