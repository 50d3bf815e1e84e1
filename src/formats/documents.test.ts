import { describe, expect, it } from "vitest";
import { contractFormatOf } from "../contract-formats/index.js";
import { productFormatOf } from "../product-formats/index.js";
import { productOwner as connectorProductOwner } from "../connectors/postgres/catalog.js";
import { contractFormatNameOf, contractOwner, productFormatNameOf, productOwner } from "./documents.js";

/** The one owner rule and detection (docs/product.md §4) agree with the server's formats for every format. */

const products: Record<string, unknown>[] = [
  { dataProductSpecification: "0.0.1", id: "p", info: { title: "P", owner: "sales" } },
  { apiVersion: "v1.0.0", kind: "DataProduct", id: "p", team: { name: "sales" }, domain: "retail" },
  { apiVersion: "v1.0.0", kind: "DataProduct", id: "p", customProperties: [{ property: "x", value: 1 }, { property: "owner", value: "sales" }], domain: "retail" },
  { apiVersion: "v1.0.0", kind: "DataProduct", id: "p", domain: "retail" },
  { apiVersion: "v1.0.0", kind: "DataProduct", id: "p" },
  { kind: "DataProduct", id: "p", team: { name: "" }, domain: "retail" },
];

const contracts: Record<string, unknown>[] = [
  { apiVersion: "v3.1.0", kind: "DataContract", id: "c", team: { name: "sales" } },
  { apiVersion: "v3.1.0", kind: "DataContract", id: "c", customProperties: [{ property: "owner", value: "sales" }] },
  { dataContractSpecification: "1.1.0", id: "c", info: { title: "C", owner: "sales" }, models: {} },
  { id: "c", info: { title: "C", owner: "sales" }, models: {} },
  { dataContractSpecification: "0.9.3", id: "c", info: { title: "C", owner: "sales" }, schema: { type: "dbt" } },
  { id: "c", info: { title: "C" } },
];

describe("the owner rule and format detection", () => {
  it.each(products)("reads product %j as the server's product formats and the connectors do", (doc) => {
    const format = productFormatOf(doc);
    expect(productFormatNameOf(doc)).toBe(format.name);
    expect(productOwner(doc)).toBe(format.facts(doc).owner);
    expect(connectorProductOwner(doc)).toBe(productOwner(doc));
  });

  it.each(contracts)("reads contract %j as the server's contract formats do", (doc) => {
    const format = contractFormatOf(doc);
    expect(contractFormatNameOf(doc)).toBe(format.name);
    expect(contractOwner(doc)).toBe(format.facts(doc).owner);
  });

  it("says where the owner belongs when a standard document names none", () => {
    expect(productFormatOf({ apiVersion: "v1.0.0", kind: "DataProduct", id: "p" }).facts({ apiVersion: "v1.0.0", kind: "DataProduct", id: "p" }).ownerField).toBe("team.name");
  });
});
