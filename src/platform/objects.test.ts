import { describe, expect, it } from "vitest";
import { withMembers } from "./objects.js";

describe("withMembers", () => {
  it("makes what a spread makes: base's members, then more's, in the same order", () => {
    const base = { b: 1, a: { deep: true }, id: "old" };
    const made = withMembers(base, { id: "new", c: 3 });
    expect(made).toEqual({ ...base, ...{ id: "new", c: 3 } });
    expect(Object.keys(made)).toEqual(Object.keys({ ...base, ...{ id: "new", c: 3 } }));
    expect(made.a).toBe(base.a);
    expect(base.id).toBe("old");
  });

  it("keeps a member named __proto__ as a member, never as the copy's prototype", () => {
    const hostile = JSON.parse('{"__proto__": {"owner": "someone-else"}, "name": "x"}') as Record<string, unknown>;
    const made = withMembers(hostile, { id: "a" }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(made.owner).toBeUndefined();
    expect(Object.keys(made)).toEqual(["__proto__", "name", "id"]);
    expect(JSON.stringify(made)).toBe('{"__proto__":{"owner":"someone-else"},"name":"x","id":"a"}');
  });
});
