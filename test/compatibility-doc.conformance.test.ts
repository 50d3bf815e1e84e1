import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { referenceOperations } from "./helpers/reference.js";

/** docs/compatibility.md promises a row for every operation of the reference product. */
describe("docs/compatibility.md", () => {
  const rows = new Map(
    readFileSync("docs/compatibility.md", "utf8")
      .split("\n")
      .map((line) => /^\| `([A-Z]+) ([^`]+)` \| `([^`]+)` \| (.+) \|$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [`${m[1]} ${m[2]}`, { operationId: m[3], verdict: m[4] }]),
  );

  it("has a row for every operation of the reference description, with its operationId and a verdict", () => {
    const missing = referenceOperations()
      .filter((o) => rows.get(`${o.method} ${o.path}`)?.operationId !== o.operationId)
      .map((o) => `${o.method} ${o.path} (${o.operationId})`);
    expect(missing).toEqual([]);
    for (const [operation, { verdict }] of rows) expect(verdict, operation).toMatch(/^(same|different|not offered)/);
  });
});
