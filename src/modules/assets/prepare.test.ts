import { describe, expect, it } from "vitest";
import { assetKind } from "./service.js";
import type { Asset } from "./shapes.js";

// `prepare` runs inside the write transaction, without the database: its rules are tested alone.
describe("an asset's prepare", () => {
  const asset = { id: "orders", info: { source: "snowflake", name: "ORDERS" } } as unknown as Asset;

  it("keeps the very object when there are no assigned tags to drop or keep, so its JSON text is stored as it came", () => {
    expect(assetKind.prepare!(asset, undefined)).toBe(asset);
    expect(assetKind.prepare!(asset, { ...asset })).toBe(asset);
  });

  it("drops assigned tags a synchronizer sends and keeps those assigned before, in the same place as a spread", () => {
    const sent = { ...asset, assignedTags: ["forged"] } as Asset;
    expect(assetKind.prepare!(sent, undefined)).toEqual(asset);
    const before = { ...asset, assignedTags: ["pii"] } as Asset;
    const kept = assetKind.prepare!(sent, before);
    expect(kept).toEqual({ ...asset, assignedTags: ["pii"] });
    expect(Object.keys(kept)).toEqual(["id", "info", "assignedTags"]);
    expect(assetKind.prepare!(asset, before)).toEqual({ ...asset, assignedTags: ["pii"] });
  });
});
