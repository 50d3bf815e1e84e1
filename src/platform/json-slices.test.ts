import { describe, expect, it } from "vitest";
import { parseJsonInSlices } from "./json-slices.js";

class Invalid extends Error {}
const options = (sliceChars: number) => ({ sliceChars, budgetMs: 0, parse: (text: string) => JSON.parse(text) as unknown, invalid: () => new Invalid() });

/** A random JSON value: nested arrays and objects of strings (with escapes), numbers and literals. */
function random(seed: number) {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const build = (depth: number): unknown => {
    const r = next();
    if (depth > 4 || r < 0.3) return [1.5e3, -2, "a\"b\\c]}", "", true, false, null, "{[,:]}"][Math.floor(next() * 8)];
    if (r < 0.65) return Array.from({ length: Math.floor(next() * 6) }, () => build(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(next() * 6) }, (_, i) => [`k${i}${next() < 0.2 ? '"\\' : ""}`, build(depth + 1)]));
  };
  return build(0);
}

describe("JSON parsed in slices", () => {
  it("reads what JSON.parse reads, however small the slices", async () => {
    for (let seed = 1; seed < 300; seed++) {
      const value = random(seed);
      for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
        for (const sliceChars of [1, 8, 64]) expect(await parseJsonInSlices(text, options(sliceChars))).toEqual(JSON.parse(text));
      }
    }
  });

  it("keeps the last of repeated keys, in the place of the first, as JSON.parse does", async () => {
    const text = '{"a": [1, 2, 3], "b": {"c": 1}, "a": {"x": [4, 5, 6]}}';
    const sliced = await parseJsonInSlices(text, options(4));
    expect(sliced).toEqual(JSON.parse(text));
    expect(Object.keys(sliced as object)).toEqual(["a", "b"]);
  });

  it("refuses what JSON.parse refuses", async () => {
    for (const text of ['{"a": [1, 2,]}', '[1,, 2]', '{"a" 1}', '{"a": 1 "b": 2}', '[1, 2]]', '[[1, 2]', '{"a": [1, 2]} x', '{1: 2}', '[1 2]', '{"a": "b}', '[,]', '{"a": [1], }']) {
      await expect(parseJsonInSlices(text, options(2)), text).rejects.toBeInstanceOf(Error);
      expect(() => JSON.parse(text)).toThrow();
    }
  });

  it("refuses prototype poisoning in big objects too", async () => {
    for (const text of ['{"x": [1, 2, 3], "__proto__": {"admin": true}}', '{"x": [1, 2, 3], "constructor": {"prototype": {"admin": true}}}']) {
      await expect(parseJsonInSlices(text, options(4))).rejects.toBeInstanceOf(Invalid);
    }
  });

  it("gives way to other work while it parses a big document", async () => {
    const text = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ["a", "b"] })));
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 0);
    const value = await parseJsonInSlices(text, { ...options(1024), budgetMs: 1 });
    clearInterval(ticking);
    expect(value).toEqual(JSON.parse(text));
    expect(ticks).toBeGreaterThan(0);
  });
});
