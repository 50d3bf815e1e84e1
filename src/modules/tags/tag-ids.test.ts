import { describe, expect, it } from "vitest";
import { normalizeTagId, scriptsOf, tagIdViolations } from "./tag-ids.js";

describe("tag ids", () => {
  it.each([
    ["pii/high", 0],
    ["Governance/PII", 0],
    ["Données/personnelles", 0],
    ["Персональные/данные", 0],
    ["Governance/Персональные", 0],
    ["データ/個人情報", 0],
    ["αβγ/tests", 0],
    ["α-tests", 1], // a Greek letter beside Latin ones in one segment
    ["pii/2024.q1", 0],
    ["p\u0456i/high", 1], // Cyrillic і in a Latin word
    ["\uFF30II", 1], // fullwidth Ｐ
    ["ﬁnance", 1], // a ligature
    ["pii/../high", 1],
    ["./pii", 1],
    ["pii/.", 1],
    ["\u03BFrders", 1], // Greek ο in a Latin word
  ])("%s breaks %i rule(s)", (id, count) => {
    expect(tagIdViolations(id)).toHaveLength(count);
    for (const v of tagIdViolations(id)) expect(v).toMatch(/^is refused \(rule: /);
  });

  it("compares ids in NFC: a combining accent is the same tag as the composed letter", () => {
    expect(normalizeTagId("Donne\u0301es")).toBe("Données");
    expect(tagIdViolations("Donne\u0301es")).toEqual([]);
  });

  it("tells the scripts of a segment", () => {
    expect(scriptsOf("p\u0456i")).toEqual(["Latin", "Cyrillic"]);
    expect(scriptsOf("2024-q1")).toEqual(["Latin"]);
    expect(scriptsOf("2024")).toEqual([]);
  });
});
