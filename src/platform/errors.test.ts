import { describe, expect, it } from "vitest";
import { MAX_VIOLATIONS, Problem } from "./errors.js";

describe("A problem", () => {
  it("of a client carries no stack, a server's does, and the process's stack limit is left as it was", () => {
    const limit = Error.stackTraceLimit;
    const notFound = new Problem(404, "Team 'ops' was not found.");
    expect(notFound).toBeInstanceOf(Error);
    expect(notFound.stack).toBe("Problem: Team 'ops' was not found.");
    expect(new Problem(503, "The database is not answering.").stack?.split("\n").length).toBeGreaterThan(1);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error("a fault").stack?.split("\n").length).toBeGreaterThan(1);
  });

  it("lists at most MAX_VIOLATIONS violations and counts the rest", () => {
    const violations = Array.from({ length: MAX_VIOLATIONS + 5 }, (_, i) => ({ field: `ports[${i}].id`, message: "is a duplicate" }));
    const problem = new Problem(422, "The document is not valid.", violations);
    expect(problem.violations).toHaveLength(MAX_VIOLATIONS + 1);
    expect(problem.violations![MAX_VIOLATIONS].message).toBe(`5 more problems not listed (limit ${MAX_VIOLATIONS})`);
  });
});
