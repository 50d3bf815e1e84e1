import { describe, expect, it } from "vitest";
import { holds, portPattern, portsHolding, type PortLocation } from "./naming.js";

const port = (type: string, server: Record<string, unknown>, outputPortId = "p"): PortLocation => ({ dataProductId: "orders", outputPortId, type, server });
const isHeld = (p: PortLocation, namespace: string, name: string) => holds(portPattern(p)!, { namespace, name });

describe("OpenLineage dataset naming against output port servers", () => {
  it("given a postgres port naming a table, when dbt names that table, then the port holds it (any case, default port)", () => {
    const pg = port("postgres", { host: "DB.internal", database: "shop", schema: "public", table: "orders" });
    expect(isHeld(pg, "postgres://db.internal:5432", "shop.public.orders")).toBe(true);
    expect(isHeld(pg, "postgresql://DB.INTERNAL:5432", "Shop.Public.Orders")).toBe(true);
    expect(isHeld(pg, "postgres://db.internal:5433", "shop.public.orders")).toBe(false);
    expect(isHeld(pg, "postgres://db.internal:5432", "shop.public.customers")).toBe(false);
  });

  it("given a postgres port without a table, then it holds every table of its schema and nothing deeper or elsewhere", () => {
    const pg = port("postgres", { host: "db", port: 6432, database: "shop", schema: "sales" });
    expect(isHeld(pg, "postgres://db:6432", "shop.sales.orders")).toBe(true);
    expect(isHeld(pg, "postgres://db:6432", "shop.sales")).toBe(false);
    expect(isHeld(pg, "postgres://db:6432", "shop.salesx.orders")).toBe(false);
    expect(isHeld(pg, "postgres://db:6432", "shop.other.orders")).toBe(false);
  });

  it("given a mysql port, then database.table in mysql://host:port is its dataset", () => {
    const my = port("mysql", { host: "mysql", port: 3307, database: "crm", table: "accounts" });
    expect(isHeld(my, "mysql://mysql:3307", "crm.accounts")).toBe(true);
    expect(isHeld(my, "mysql://mysql:3306", "crm.accounts")).toBe(false);
    expect(isHeld(port("mysql", { host: "mysql", database: "crm" }), "mysql://mysql:3306", "crm.leads")).toBe(true);
  });

  it("given a bigquery port, then project.dataset.table in the bigquery namespace is its dataset", () => {
    const bq = port("bigquery", { project: "acme-prod", dataset: "sales" });
    expect(isHeld(bq, "bigquery", "acme-prod.sales.orders")).toBe(true);
    expect(isHeld(bq, "bigquery", "acme-dev.sales.orders")).toBe(false);
  });

  it("given an s3 port by location, then objects under its path in s3://bucket are its datasets (s3a too), case kept", () => {
    const s3 = port("s3", { location: "s3://Lake/orders/" });
    expect(isHeld(s3, "s3://lake", "orders/2026/01/part-0.parquet")).toBe(true);
    expect(isHeld(s3, "s3a://lake", "/orders")).toBe(true);
    expect(isHeld(s3, "s3://lake", "orders-archive/x")).toBe(false);
    expect(isHeld(s3, "s3://lake", "Orders/x")).toBe(false);
    expect(isHeld(port("s3", { bucket: "lake", path: "events" }), "s3://lake", "events/day=1")).toBe(true);
  });

  it("given a port whose server says too little or an unknown type, then it holds no dataset", () => {
    expect(portPattern(port("postgres", { database: "shop" }))).toBeUndefined();
    expect(portPattern(port("kafka", { host: "k", topic: "t" }))).toBeUndefined();
    expect(portPattern({ type: "postgres" })).toBeUndefined();
    expect(portPattern(port("s3", { location: "https://lake/x" }))).toBeUndefined();
  });

  it("given a table port and a schema-wide port holding the same dataset, then the table port is the one it maps to", () => {
    const wide = port("postgres", { host: "db", database: "shop", schema: "public" }, "all");
    const exact = port("postgres", { host: "db", database: "shop", schema: "public", table: "orders" }, "orders");
    const ports = [wide, exact].map((p) => ({ port: p, pattern: portPattern(p)! }));
    expect(portsHolding(ports, { namespace: "postgres://db:5432", name: "shop.public.orders" }).map((p) => p.outputPortId)).toEqual(["orders"]);
    expect(portsHolding(ports, { namespace: "postgres://db:5432", name: "shop.public.items" }).map((p) => p.outputPortId)).toEqual(["all"]);
  });
});
