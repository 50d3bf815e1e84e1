import { beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

const odps = (id: string, team: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1.0.0",
  kind: "DataProduct",
  id,
  name: id,
  status: "active",
  team: { name: team },
  ...extra,
});
const dps = (id: string, owner: string, info: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  dataProductSpecification: "0.0.1",
  id,
  info: { title: id, owner, ...info },
  ...extra,
});
const odcs = (id: string, team: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v3.1.0",
  kind: "DataContract",
  id,
  name: id,
  version: "1.0.0",
  status: "active",
  team: { name: team },
  ...extra,
});
const dcs = (id: string, owner: string, info: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  dataContractSpecification: "1.1.0",
  id,
  info: { title: id, version: "1.0.0", owner, ...info },
  models: { rows: { fields: { id: { type: "string" } } } },
  ...extra,
});

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function listFilterTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`list filters of data products and data contracts (%s)${check.label}`, (kind) => {
    const t = suiteServer(kind, { teams: { sales: "sales", marketing: "marketing", ops: "ops" } });

    const put = async (plural: string, doc: { id: string } & Record<string, unknown>) => {
      const res = await t.api("PUT", `/api/${plural}/${doc.id}`, doc);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    /**
     * The reference describes a data product list as either format, a data contract list as ODCS
     * only (it calls the Data Contract Specification deprecated): DCS contracts are left out of
     * the check.
     */
    const list = async (plural: string, query: string) => {
      const res = await t.api("GET", `/api/${plural}${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const checked = plural === "datacontracts" ? res.body.filter((c: Record<string, unknown>) => c.apiVersion !== undefined) : res.body;
      check.answer("GET", `/api/${plural}`, 200, checked);
      return res;
    };
    const ids = async (plural: string, query: string) => (await list(plural, query)).body.map((d: { id: string }) => d.id);

    describe("data products", () => {
      const products = (query: string) => ids("dataproducts", query);

      beforeAll(async () => {
        await put("dataproducts", dps("orders", "sales", { archetype: "source-aligned", domain: "commerce", status: "active" }, { tags: ["core"] }));
        await put("dataproducts", dps("leads", "marketing", { archetype: "consumer-aligned", domain: "commerce" }));
        await put("dataproducts", odps("stock", "ops", { domain: "operations", customProperties: [{ property: "archetype", value: "source-aligned" }], tags: ["core"] }));
        // The reference product's own ODPS example names its archetype in a custom property `type`.
        await put("dataproducts", odps("shelf", "ops", { domain: "operations", customProperties: [{ property: "type", value: "consumer-aligned" }] }));
        await put("dataproducts", dps("plain", "sales"));
      });

      it("filters by archetype from either format, exactly", async () => {
        expect(await products("?archetype=source-aligned")).toEqual(["orders", "stock"]);
        expect(await products("?archetype=consumer-aligned")).toEqual(["leads", "shelf"]);
        expect(await products("?archetype=Source-Aligned")).toEqual([]);
        expect(await products("?archetype=aggregate")).toEqual([]);
        expect(await products("?archetype=%25")).toEqual([]);
      });

      it("filters by one or several domains", async () => {
        expect(await products("?domainId=commerce")).toEqual(["orders", "leads"]);
        expect(await products("?domainId=operations")).toEqual(["stock", "shelf"]);
        expect(await products("?domainId=operations&domainId=commerce")).toEqual(["orders", "leads", "stock", "shelf"]);
        expect(await products("?domainId=nowhere")).toEqual([]);
        expect(await products("?domainId=Commerce")).toEqual([]);
      });

      it("combines the filters with each other, with several teams and with paging", async () => {
        expect(await products("?teamId=sales&domainId=commerce")).toEqual(["orders"]);
        expect(await products("?teamId=sales&teamId=ops")).toEqual(["orders", "stock", "shelf", "plain"]);
        expect(await products("?teamId=sales&teamId=ops&archetype=consumer-aligned")).toEqual(["shelf"]);
        expect(await products("?domainId=operations&archetype=source-aligned&tag=core")).toEqual(["stock"]);
        expect(await products("?domainId=commerce&archetype=source-aligned&status=active&sort=name")).toEqual(["orders"]);
        expect(await products("?domainId=commerce&domainId=operations&sort=name")).toEqual(["leads", "orders", "shelf", "stock"]);

        const first = await list("dataproducts", "?domainId=commerce&domainId=operations&pageSize=3");
        expect(first.body.map((d: { id: string }) => d.id)).toEqual(["orders", "leads", "stock"]);
        expect(first.headers.get("link")).toBe('</api/dataproducts?domainId=commerce&domainId=operations&pageSize=3&p=1>; rel="next"');
        const second = await list("dataproducts", "?domainId=commerce&domainId=operations&pageSize=3&p=1");
        expect(second.body.map((d: { id: string }) => d.id)).toEqual(["shelf"]);
        expect(second.headers.get("link")).toBeNull();
      });

      it("reads the domain and archetype again on every write", async () => {
        await put("dataproducts", odps("stock", "ops", { domain: "logistics", tags: ["core"] }));
        expect(await products("?domainId=operations")).toEqual(["shelf"]);
        expect(await products("?domainId=logistics")).toEqual(["stock"]);
        expect(await products("?archetype=source-aligned")).toEqual(["orders"]);
        await put("dataproducts", dps("plain", "sales", { archetype: "aggregate", domain: "logistics" }));
        expect(await products("?domainId=logistics&archetype=aggregate")).toEqual(["plain"]);
        // A product deleted is gone from every filter.
        expect((await t.api("DELETE", "/api/dataproducts/plain")).status).toBe(204);
        expect(await products("?archetype=aggregate")).toEqual([]);
      });
    });

    describe("data contracts", () => {
      const contracts = (query: string) => ids("datacontracts", query);

      beforeAll(async () => {
        await put("datacontracts", odcs("orders-v1", "sales", { domain: "commerce", tags: ["core", "pii"] }));
        await put("datacontracts", dcs("leads-v1", "marketing", { domain: "commerce" }, { tags: ["core"] }));
        await put("datacontracts", odcs("Stock-v1", "ops", { name: "stock", domain: "operations", tags: ["Core"] }));
        await put("datacontracts", {
          dataContractSpecification: "0.9.3",
          id: "apples-v1",
          info: { title: "Apples", version: "1.0.0", owner: "sales", domain: "operations" },
          tags: ["fruit"],
          schema: { type: "custom", specification: "x" },
        });
        await put("datacontracts", odcs("plain-v1", "sales", { name: "Zebra" }));
      });

      it("filters by tag, exactly, in every format", async () => {
        expect(await contracts("?tag=core")).toEqual(["orders-v1", "leads-v1"]);
        expect(await contracts("?tag=Core")).toEqual(["Stock-v1"]);
        expect(await contracts("?tag=pii")).toEqual(["orders-v1"]);
        expect(await contracts("?tag=fruit")).toEqual(["apples-v1"]);
        expect(await contracts("?tag=cor")).toEqual([]);
        expect(await contracts("?tag=%25")).toEqual([]);
      });

      it("filters by one or several domains", async () => {
        expect(await contracts("?domainId=commerce")).toEqual(["orders-v1", "leads-v1"]);
        expect(await contracts("?domainId=operations")).toEqual(["Stock-v1", "apples-v1"]);
        expect(await contracts("?domainId=commerce&domainId=operations")).toEqual(["orders-v1", "leads-v1", "Stock-v1", "apples-v1"]);
        expect(await contracts("?domainId=nowhere")).toEqual([]);
      });

      it("sorts by name, letter case ignored, and combines with teams, tags and paging", async () => {
        expect(await contracts("?sort=name")).toEqual(["apples-v1", "leads-v1", "orders-v1", "Stock-v1", "plain-v1"]);
        expect(await contracts("?teamId=sales&teamId=ops&sort=name")).toEqual(["apples-v1", "orders-v1", "Stock-v1", "plain-v1"]);
        expect(await contracts("?teamId=sales&domainId=commerce")).toEqual(["orders-v1"]);
        expect(await contracts("?teamId=marketing&tag=core&domainId=commerce")).toEqual(["leads-v1"]);
        expect(await contracts("?teamId=marketing&tag=pii")).toEqual([]);
        const first = await list("datacontracts", "?sort=name&pageSize=2");
        expect(first.body.map((d: { id: string }) => d.id)).toEqual(["apples-v1", "leads-v1"]);
        expect(first.headers.get("link")).toBe('</api/datacontracts?sort=name&pageSize=2&p=1>; rel="next"');
        expect(await contracts("?sort=name&pageSize=2&p=2")).toEqual(["plain-v1"]);
        expect(await contracts("?tag=core&sort=name&pageSize=1&p=1")).toEqual(["orders-v1"]);
      });

      it("takes the reference CLI's owner (the team's name, or its id as the formats name it) and domain", async () => {
        expect((await t.api("PUT", "/api/teams/ops", { name: "Operations Team" })).status).toBe(200);
        expect(await contracts("?owner=Operations%20Team")).toEqual(["Stock-v1"]);
        expect(await contracts("?owner=ops")).toEqual(["Stock-v1"]);
        expect(await contracts("?owner=sales")).toEqual(["orders-v1", "apples-v1", "plain-v1"]);
        expect(await contracts("?owner=operations%20team")).toEqual([]);
        expect(await contracts("?owner=nobody")).toEqual([]);
        expect(await contracts("?domain=commerce")).toEqual(["orders-v1", "leads-v1"]);
        expect(await contracts("?domain=commerce&domainId=operations")).toEqual(["orders-v1", "leads-v1", "Stock-v1", "apples-v1"]);
        expect(await contracts("?owner=sales&domain=operations")).toEqual(["apples-v1"]);
        expect(await contracts("?owner=sales&teamId=marketing")).toEqual([]);
      });

      it("reads the domain again on every write", async () => {
        await put("datacontracts", odcs("orders-v1", "sales", { domain: "logistics", tags: ["core", "pii"] }));
        expect(await contracts("?domainId=commerce")).toEqual(["leads-v1"]);
        expect(await contracts("?domainId=logistics")).toEqual(["orders-v1"]);
      });
    });

    describe.each(["dataproducts", "datacontracts"])("bad filter values on %s", (plural) => {
      const problem = async (query: string, field: string) => {
        const res = await t.api("GET", `/api/${plural}${query}`);
        expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.headers.get("content-type")).toContain("application/problem+json");
        expect(res.body.violations.map((v: { field: string }) => v.field)).toContain(field);
        return res.body;
      };

      it("answers 400 naming the parameter, never a 500", async () => {
        const sort = await problem("?sort=price", "sort");
        expect(sort.violations.find((v: { field: string }) => v.field === "sort").message).toBe("must be one of: name");
        await problem("?sort=name&sort=name", "sort");
        await problem("?status=active&status=draft", "status");
        await problem("?tag=a&tag=b", "tag");
        await problem("?tag=%00", "tag");
        await problem("?status=%00", "status");
        await problem("?teamId=%00", "teamId[0]");
        await problem("?domainId=a&domainId=%00", "domainId[1]");
        await problem(`?domainId=${"x".repeat(257)}`, "domainId[0]");
        await problem(`?${Array.from({ length: 101 }, (_, i) => `teamId=t${i}`).join("&")}`, "teamId");
        if (plural === "dataproducts") {
          await problem("?archetype=a&archetype=b", "archetype");
          await problem("?archetype=%00", "archetype");
        }
      });
    });
  });
}
