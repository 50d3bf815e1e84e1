import { describe, expect, it } from "vitest";
import { firstNonJsonMember, mayHoldHugeNumber } from "./json-values.js";

describe("mayHoldHugeNumber", () => {
  it("finds long exponents and digit runs past JSON's range, and passes everything else", () => {
    expect(mayHoldHugeNumber('{"a": 1e999}')).toBe(true);
    expect(mayHoldHugeNumber('{"a": 2E+308}')).toBe(true);
    expect(mayHoldHugeNumber(`{"a": ${"9".repeat(309)}}`)).toBe(true);
    expect(mayHoldHugeNumber(`{"a": ${"9".repeat(308)}.5, "b": 1e99}`)).toBe(false);
    expect(mayHoldHugeNumber('{"a": "x", "b": [1, 2.5e-3]}')).toBe(false);
  });

  it("scans a body of digit runs just short of the limit in linear time, not once per digit", () => {
    // About 1 MB of 308-digit runs: a pattern that retried at every digit took seconds here;
    // the scan is measured against parsing the same text, the floor every body pays.
    const text = JSON.stringify({ a: `${"1".repeat(308)}x`.repeat(3_400) });
    const time = (work: () => unknown) => {
      const started = performance.now();
      for (let i = 0; i < 5; i++) work();
      return performance.now() - started;
    };
    time(() => mayHoldHugeNumber(text));
    const parse = time(() => JSON.parse(text));
    const scan = time(() => mayHoldHugeNumber(text));
    expect(mayHoldHugeNumber(text)).toBe(false);
    expect(scan, `scan ${scan.toFixed(1)} ms, JSON.parse ${parse.toFixed(1)} ms`).toBeLessThan(parse * 20);
  });
});

describe("firstNonJsonMember", () => {
  it("names the first member JSON cannot carry, by its path", () => {
    expect(firstNonJsonMember({ a: [1, { b: Infinity }] })).toMatchObject({ path: ["a", 1, "b"] });
    expect(firstNonJsonMember({ a: [1, { b: 2 }] })).toBeUndefined();
  });
});
