import { describe, expect, it } from "vitest";
import { mapPorts, readsNeedingAccess, type CatalogProduct } from "./reads.js";

const products: CatalogProduct[] = [
  { id: "orders", ownerTeamId: "sales", outputPorts: [{ id: "pg", type: "postgres", server: { host: "db", database: "shop", schema: "public", table: "orders" } }, { id: "events", type: "kafka", server: { topic: "x" } }] },
  { id: "customers", ownerTeamId: "crm", outputPorts: [{ id: "mysql", type: "mysql", server: { host: "crm-db", database: "crm" } }] },
  { id: "reporting", ownerTeamId: "analytics", outputPorts: [{ id: "bq", type: "bigquery", server: { project: "acme", dataset: "reports" } }] },
];
const ports = mapPorts(products);

describe("reads that need an agreement", () => {
  it("given ports with servers, when mapped, then only ports whose server names datasets take part", () => {
    expect(ports.entries.map((p) => `${p.port.dataProductId}/${p.port.outputPortId}`)).toEqual(["orders/pg", "customers/mysql", "reporting/bq"]);
  });

  it("given a run for reporting reading two products' datasets, then each of those ports is a read, once", () => {
    const reads = readsNeedingAccess(
      [
        { namespace: "postgres://db:5432", name: "shop.public.orders" },
        { namespace: "POSTGRES://DB:5432", name: "shop.public.ORDERS" },
        { namespace: "mysql://crm-db:3306", name: "crm.accounts" },
        { namespace: "s3://raw", name: "unmapped/file.csv" },
      ],
      { dataProductId: "reporting", teamId: "analytics" },
      ports,
    );
    expect(reads.map((r) => [r.port.dataProductId, r.port.outputPortId, r.dataset.name])).toEqual([
      ["orders", "pg", "shop.public.orders"],
      ["customers", "mysql", "crm.accounts"],
    ]);
  });

  it("given a run reading its own product's or its own team's port, then no agreement is needed", () => {
    expect(readsNeedingAccess([{ namespace: "bigquery", name: "acme.reports.daily" }], { dataProductId: "reporting", teamId: "analytics" }, ports)).toEqual([]);
    expect(readsNeedingAccess([{ namespace: "postgres://db:5432", name: "shop.public.orders" }], { dataProductId: "sales-forecast", teamId: "sales" }, ports)).toEqual([]);
  });
});
