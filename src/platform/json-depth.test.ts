import { describe, expect, it } from "vitest";
import { scanJsonText } from "./json-depth.js";
import { firstNonJsonMember } from "./json-values.js";

const huge = (text: string) => scanJsonText(text, 200).mayHoldHugeNumber;

describe("scanJsonText", () => {
  it("finds numbers that may lie past JSON's range: long exponents and digit runs", () => {
    expect(huge('{"a": 1e999}')).toBe(true);
    expect(huge('{"a": 2E+308}')).toBe(true);
    expect(huge('[1.5e00400]')).toBe(true);
    expect(huge(`{"a": ${"9".repeat(309)}}`)).toBe(true);
    // Digits and exponent together: neither alone passes 308.
    expect(huge(`{"a": 1${"0".repeat(250)}e99}`)).toBe(true);
    expect(huge(`[${"9".repeat(308)}e1]`)).toBe(true);
    expect(huge(`[${"9".repeat(300)}.5e9]`)).toBe(true);
  });

  it("passes numbers within range, negative exponents, long fractions, and digits inside strings", () => {
    expect(huge(`{"a": ${"9".repeat(308)}.5, "b": 1e99, "c": 1e-999, "d": 0.${"1".repeat(400)}, "e": 1${"0".repeat(200)}e-300}`)).toBe(false);
    expect(huge(`[1${"0".repeat(200)}e99, 1.5e300, 12e200]`)).toBe(false);
    expect(huge(`{"a": "1e999 ${"9".repeat(400)}", "b": true, "e": false, "f": [1, 2.5e-3, 7E+02]}`)).toBe(false);
    expect(huge('{"a\\"1e999": "\\\\", "b": 1e0009}')).toBe(false);
    // Whatever the scan says, the walk decides: every number it flags is judged after parsing.
    for (const n of [`1${"0".repeat(250)}e99`, `${"9".repeat(308)}e1`, "1e309"]) expect(Number.isFinite(JSON.parse(n))).toBe(false);
  });

  it("measures nesting outside strings only", () => {
    expect(scanJsonText(`${"[".repeat(201)}${"]".repeat(201)}`, 200).tooDeep).toBe(true);
    expect(scanJsonText(`${"[".repeat(200)}${"]".repeat(200)}`, 200).tooDeep).toBe(false);
    expect(scanJsonText(JSON.stringify({ a: "[".repeat(1000) }), 200).tooDeep).toBe(false);
  });

  it("scans a body of digit runs just short of the limit in one pass", () => {
    // About 1 MB of 308-digit numbers, and of strings of such runs: a pattern that retried at every
    // digit took seconds on these. Measured against parsing the same text, the floor every body pays.
    const numbers = `[${Array.from({ length: 3_400 }, () => "1".repeat(308)).join(",")}]`;
    const strings = JSON.stringify({ a: `${"1".repeat(308)}x`.repeat(3_400) });
    for (const text of [numbers, strings]) {
      const time = (work: () => unknown) => {
        const started = performance.now();
        for (let i = 0; i < 5; i++) work();
        return performance.now() - started;
      };
      time(() => scanJsonText(text, 200));
      const parse = time(() => JSON.parse(text));
      const scan = time(() => scanJsonText(text, 200));
      expect(huge(text)).toBe(false);
      expect(scan, `scan ${scan.toFixed(1)} ms, JSON.parse ${parse.toFixed(1)} ms`).toBeLessThan(parse * 20);
    }
  });
});

describe("firstNonJsonMember", () => {
  it("names the first member JSON cannot carry, by its path", () => {
    expect(firstNonJsonMember({ a: [1, { b: Infinity }] })).toMatchObject({ path: ["a", 1, "b"] });
    expect(firstNonJsonMember({ a: [1, { b: 2 }] })).toBeUndefined();
  });
});
