import { describe, expect, it } from "vitest";
import { escapeField, terminalSafeJson } from "../../src/cli/consume.js";

describe("what steward consume prints", () => {
  it("keeps plain fields as they are", () => {
    expect(escapeField("orders-v1")).toBe("orders-v1");
    expect(escapeField("2026-11-23T09:00:00.000000000Z")).toBe("2026-11-23T09:00:00.000000000Z");
    expect(escapeField("Bestellungen-ü")).toBe("Bestellungen-ü");
  });

  it("escapes what could forge a line, shift a column or reach the terminal", () => {
    const cases: [string, string][] = [
      ["a\nb", "a\\nb"],
      ["a\r\tb", "a\\r\\tb"],
      ["a b", "a\\x20b"],
      ["\x1b[2J\x1b]0;owned\x07", "\\x1b[2J\\x1b]0;owned\\x07"],
      ["\u009b31m", "\\x9b31m"],
      ["x\u202eevil", "x\\u{202e}evil"],
      ["a\u2028b", "a\\u{2028}b"],
      ["back\\slash", "back\\\\slash"],
      ['"', "\\x22"],
      ["", '""'],
    ];
    for (const [raw, printed] of cases) expect(escapeField(raw)).toBe(printed);
  });

  it("prints JSON lines with no raw control or format character, and the same value", () => {
    const event = { subject: "a\u009b\u007f\u2028\u202e\u{e0001}\n\x1b", id: "x" };
    const line = terminalSafeJson(event);
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202e]|\u{e0001}/u);
    expect(JSON.parse(line)).toEqual(event);
  });
});
