import { describe, expect, it } from "vitest";
import { documentWords, MAX_DOCUMENT_WORDS } from "./document-words.js";

describe("the words search finds a document by", () => {
  it("takes ODCS property names, business names and descriptions", () => {
    const words = documentWords({
      apiVersion: "v3.1.0",
      schema: [{ name: "orders", properties: [{ name: "rcvr_id", businessName: "Receiver", description: "Who receives the parcel", logicalType: "string" }] }],
    });
    expect(words).toEqual(expect.arrayContaining(["orders", "rcvr_id", "Receiver", "Who receives the parcel"]));
  });

  it("takes DCS model and field names from their keys, and a schema's specification text", () => {
    const words = documentWords({
      models: { shipments: { description: "Parcels", fields: { carrier_code: { type: "string" } } } },
      schema: { type: "dbt", specification: "version: 2\nmodels:\n  - name: returns\n" },
    });
    expect(words).toEqual(expect.arrayContaining(["shipments", "carrier_code", "Parcels", "dbt"]));
    expect(words.join(" ")).toContain("returns");
  });

  it("stops at its limit whatever the document holds", () => {
    const huge = { schema: Array.from({ length: 100_000 }, (_, i) => ({ name: `field_${i}`, description: "x".repeat(50) })) };
    const words = documentWords(huge);
    expect(words.join(" ").length).toBeLessThanOrEqual(MAX_DOCUMENT_WORDS + words.length);
  });
});
