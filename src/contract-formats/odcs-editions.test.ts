import { describe, expect, it } from "vitest";
import { change, odcsContract as contract, type Doc } from "../../test/helpers/edition-documents.js";
import { odcsFormat } from "./odcs.js";

/** ODCS 3.0.x contracts converted to 3.1.0 keep what 3.1.0 has no member for (the official verdicts are in odcs-editions.conformance.test.ts). */

const P = "schema.0.properties.0";
describe.each(["v3.0.2", "v3.0.0"])("ODCS %s converted to 3.1.0", (apiVersion) => {
  it("keeps what 3.1 has no member for in customProperties, and an exclusive bound's meaning", () => {
    const doc = contract(apiVersion);
    Object.assign(doc, { price: { priceAmount: 1, note: "n" }, roles: [{ role: "reader", note: 2 }], team: [{ username: "u", note: 3 }] });
    change(doc, P, { name: "d", logicalType: "date", logicalTypeOptions: { minimum: "2020-01-01", exclusiveMinimum: true, maximum: "2030-01-01", exclusiveMaximum: false } });
    const converted = odcsFormat.toOdcs(doc as Doc & { id: string });
    expect(converted.customProperties).toEqual([{ property: "price.note", value: "n" }]);
    expect(converted.roles).toEqual([{ role: "reader", customProperties: [{ property: "note", value: 2 }] }]);
    expect(converted.team).toEqual({ members: [{ username: "u", customProperties: [{ property: "note", value: 3 }] }] });
    expect((converted.schema as Doc[])[0]!.properties).toMatchObject([{ logicalTypeOptions: { exclusiveMinimum: "2020-01-01", maximum: "2030-01-01" } }, {}]);
  });
});

describe("ODCS v3.2.0 enumerations", () => {
  const withEnum = (entries: unknown[]) => {
    const doc = contract("v3.2.0");
    change(doc, `${P}.enum`, entries);
    return doc;
  };

  it("reports an entry written twice, whatever the order of its members", () => {
    const violations = odcsFormat.validate(withEnum([{ value: "a", label: "A" }, { value: "b" }, { label: "A", value: "a" }]));
    expect(violations).toEqual([{ field: `schema[0].properties[0].enum[2]`, message: expect.stringContaining("repeats entry 0") }]);
  });

  it("checks a long enumeration in one pass, not by comparing every pair", () => {
    const entries = Array.from({ length: 40_000 }, (_, i) => ({ value: `v${i}`, label: `Value ${i}` }));
    const started = performance.now();
    expect(odcsFormat.validate(withEnum(entries))).toEqual([]);
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
