import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { createTeamKey, suiteServer } from "../../../test/helpers/suite-server.js";

describe.each(DATABASES)("data products (%s)", (kind) => {
  let salesKey: string;
  const t = suiteServer(kind, {
    teams: { sales: "Sales", marketing: "Marketing" },
    setup: async (t) => {
      await t.api("PUT", "/api/datacontracts/orders-v1", { dataContractSpecification: "0.9.3", info: { title: "Orders", version: "1.0.0", owner: "sales" }, schema: { type: "custom", specification: "x" } });
      salesKey = await createTeamKey(t, "sales", "sales");
    },
  });

  const eventsOf = async (subject: string) =>
    ((await t.api("GET", "/api/events")).body as any[])
      .filter((e) => e.subject === subject)
      .map((e) => [e.type.split(".").pop(), e.data.outputPortId].filter(Boolean).join(":"));

  const product = {
    dataProductSpecification: "0.0.1",
    info: { title: "Orders", owner: "sales", description: "All orders", status: "active", archetype: "source-aligned", maturity: "managed" },
    inputPorts: [{ id: "erp", sourceSystemId: "sap" }],
    outputPorts: [
      { id: "pg", name: "Orders in PostgreSQL", type: "postgres", server: { host: "db", port: 5432, database: "shop", schema: "orders" }, dataContractId: "orders-v1", containsPii: true, custom: { x: 1 } },
      { id: "bq", name: "Orders in BigQuery", type: "bigquery", autoApprove: true },
    ],
    tags: ["core"],
    links: { repo: "https://git.example.com/orders" },
    custom: { tier: "gold" },
    extension: { unknownToSteward: [1, 2, { deep: true }] },
  };

  it("round-trips the document with custom, links and unknown members", async () => {
    const res = await t.api("PUT", "/api/dataproducts/orders", product);
    expect(res.status).toBe(200);
    expect(res.headers.get("location-html")).toBe("http://steward.test/dataproducts/orders");
    expect((await t.api("GET", "/api/dataproducts/orders")).body).toEqual({ id: "orders", ...product });
    expect(await eventsOf("orders")).toEqual(["DataProductCreatedEvent", "OutputPortCreatedEvent:pg", "OutputPortCreatedEvent:bq"]);
  });

  it("emits one OutputPort event per port that changed", async () => {
    const changed = {
      ...product,
      outputPorts: [{ ...product.outputPorts[0], description: "now documented" }, { id: "s3", type: "s3" }],
    };
    expect((await t.api("PUT", "/api/dataproducts/orders", changed)).status).toBe(200);
    expect((await eventsOf("orders")).slice(3)).toEqual([
      "DataProductUpdatedEvent",
      "OutputPortUpdatedEvent:pg",
      "OutputPortCreatedEvent:s3",
      "OutputPortDeletedEvent:bq",
    ]);
    await t.api("PUT", "/api/dataproducts/orders", product);
  });

  it("requires an existing owner team and unique port ids", async () => {
    const res = await t.api("PUT", "/api/dataproducts/bad", {
      info: { title: "Bad", owner: "nobody" },
      outputPorts: [{ id: "a" }, { id: "a" }],
    });
    expect(res.status).toBe(422);
    expect(res.body.violations.map((v: any) => v.field)).toEqual(["info.owner", "outputPorts[1].id"]);
    const missing = await t.api("PUT", "/api/dataproducts/bad", { info: {} });
    expect(missing.body.violations.map((v: any) => v.field).sort()).toEqual(["info.owner", "info.title"]);
    expect((await t.api("GET", "/api/dataproducts/bad")).status).toBe(404);
  });

  it("filters by q, teamId and status, with paging", async () => {
    await t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing", status: "draft" } });
    await t.api("PUT", "/api/dataproducts/leads", { info: { title: "Leads", owner: "marketing", status: "active", description: "Inbound ORDERS of brochures" } });
    const ids = async (q: string) => (await t.api("GET", `/api/dataproducts${q}`)).body.map((p: any) => p.id);
    expect(await ids("")).toEqual(["orders", "campaigns", "leads"]);
    expect(await ids("?teamId=marketing")).toEqual(["campaigns", "leads"]);
    expect(await ids("?status=active")).toEqual(["orders", "leads"]);
    expect(await ids("?q=orders")).toEqual(["orders", "leads"]);
    expect(await ids("?teamId=marketing&status=active")).toEqual(["leads"]);
    const page = await t.api("GET", "/api/dataproducts?pageSize=2");
    expect(page.body).toHaveLength(2);
    expect(page.headers.get("link")).toContain("p=1");

    await t.api("PUT", "/api/dataproducts/apples", { info: { title: "apples", owner: "sales", status: "active" } });
    expect(await ids("?sort=name")).toEqual(["apples", "campaigns", "leads", "orders"]);
    expect(await ids("?sort=name&status=active&pageSize=1&p=1")).toEqual(["leads"]);
    const sorted = await t.api("GET", "/api/dataproducts?sort=name&pageSize=2");
    expect(sorted.headers.get("link")).toBe('</api/dataproducts?sort=name&pageSize=2&p=1>; rel="next"');
    await t.api("PUT", "/api/dataproducts/pears", { info: { title: "Pears", owner: "sales" }, tags: ["fruit", "green"] });
    await t.api("PUT", "/api/dataproducts/plums", { info: { title: "Plums", owner: "sales" }, tags: ["fruity"] });
    await t.api("PUT", "/api/dataproducts/odps-figs", { apiVersion: "v1.0.0", kind: "DataProduct", id: "odps-figs", name: "Figs", status: "draft", team: { name: "sales" }, tags: ["fruit"] });
    expect(await ids("?tag=fruit")).toEqual(["pears", "odps-figs"]);
    expect(await ids("?tag=fruit&sort=name")).toEqual(["odps-figs", "pears"]);
    expect(await ids("?tag=Fruit")).toEqual([]);
    expect(await ids("?tag=%25")).toEqual([]);
    const bad = await t.api("GET", "/api/dataproducts?sort=price");
    expect(bad.status).toBe(400);
    expect(bad.body.violations[0].field).toBe("sort");
  });

  it("lets a team key change only its own team's products, and not give them away", async () => {
    const own = await t.api("PUT", "/api/dataproducts/orders", { ...product, info: { ...product.info, title: "Orders!" } }, { key: salesKey });
    expect(own.status).toBe(200);
    expect((await t.api("PUT", "/api/dataproducts/campaigns", { info: { title: "Mine now", owner: "sales" } }, { key: salesKey })).status).toBe(403);
    expect((await t.api("PUT", "/api/dataproducts/orders", { ...product, info: { ...product.info, owner: "marketing" } }, { key: salesKey })).status).toBe(403);
    expect((await t.api("PUT", "/api/dataproducts/new-one", { info: { title: "New", owner: "marketing" } }, { key: salesKey })).status).toBe(403);
    expect((await t.api("DELETE", "/api/dataproducts/campaigns", undefined, { key: salesKey })).status).toBe(403);
    expect((await t.api("GET", "/api/dataproducts/campaigns", undefined, { key: salesKey })).status).toBe(200);
    expect((await t.api("PUT", "/api/dataproducts/sales-new", { info: { title: "New", owner: "sales" } }, { key: salesKey })).status).toBe(200);
  });

  it("refuses to delete a product, or drop a port, that an access still uses", async () => {
    const access = await t.api("POST", "/api/access", {
      info: { purpose: "reporting" },
      provider: { dataProductId: "orders", outputPortId: "pg" },
      consumer: { teamId: "marketing" },
    });
    expect(access.status).toBe(201);
    expect((await t.api("DELETE", "/api/dataproducts/orders")).status).toBe(409);
    const dropPort = await t.api("PUT", "/api/dataproducts/orders", { ...product, outputPorts: [product.outputPorts[1]] });
    expect(dropPort.status).toBe(409);
    expect(dropPort.body.detail).toContain("'pg'");
    // Dropping a port nobody uses is fine.
    expect((await t.api("PUT", "/api/dataproducts/orders", { ...product, outputPorts: [product.outputPorts[0]] })).status).toBe(200);
    // The owning team cannot be deleted while it owns products.
    expect((await t.api("DELETE", "/api/teams/sales")).status).toBe(409);

    expect((await t.api("POST", `/api/access/${access.body.id}/reject`)).status).toBe(200);
    expect((await t.api("DELETE", "/api/dataproducts/orders")).status).toBe(204);
    expect((await eventsOf("orders")).slice(-2)).toEqual(["DataProductDeletedEvent", "OutputPortDeletedEvent:pg"]);
  });
});
