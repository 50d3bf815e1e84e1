import { describe, expect, it } from "vitest";
import { Problem } from "./errors.js";
import { readYaml } from "./yaml-document.js";

function refusal(text: string): string {
  try {
    readYaml(text);
  } catch (error) {
    if (error instanceof Problem) return error.detail;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("reading YAML bodies", () => {
  it("refuses a key repeated in its mapping, naming where, at any depth", () => {
    expect(refusal("a: 1\nb:\n  c: 1\n  c: 2\n")).toBe("The request body is not valid YAML (line 4, column 3): Map keys must be unique");
    expect(refusal("- {x: 1, x: 2}\n")).toMatch(/line 1, column 10\): Map keys must be unique/);
    // Keys that become the same member name repeat each other too.
    expect(refusal("1: a\n'1': b\n")).toMatch(/Map keys must be unique/);
  });

  it("reads many keys, and the same key in different mappings", () => {
    const text = Array.from({ length: 6000 }, (_, i) => `k${i}: {name: v}`).join("\n");
    const { value } = readYaml(text);
    expect(Object.keys(value as object)).toHaveLength(6000);
    expect((value as Record<string, unknown>).k5999).toEqual({ name: "v" });
  });
});
