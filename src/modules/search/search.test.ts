import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { putOrFail, suiteServer } from "../../../test/helpers/suite-server.js";
import { openDatabase } from "../../platform/database/index.js";
import { searchRepository } from "./repository.js";
import { afterPrefix, postgresPrefixes, postgresQuery, searchTerms, sqliteMatch, usableWords } from "./terms.js";

describe("search terms", () => {
  it("keeps words of letters, digits and underscores, each a prefix, and nothing of the index's syntax", () => {
    expect(searchTerms('rcvr_id "Orders" OR NEAR(a b) *:^')).toEqual(["rcvr_id", "orders", "or", "near", "a", "b"]);
    expect(sqliteMatch(["rcvr_id", "ord"])).toBe('"rcvr_id"* "ord"*');
    expect(postgresQuery(["rcvr_id", "ord"])).toBe("'rcvr' <-> 'id':* & 'ord':*");
    expect(postgresQuery(["_id", "a__b_", "___"])).toBe("'id':* & 'a' <-> 'b':* & '___':*");
    // A prefix as the words that start with it, when those are known.
    expect(postgresPrefixes(["rcvr_id", "ord", "___", "id"])).toEqual(["id", "ord"]);
    expect(postgresQuery(["rcvr_id", "ord"], new Map([["id", ["id"]], ["ord", ["order", "orders"]]]))).toBe("'rcvr' <-> 'id' & ('order' | 'orders')");
    expect(afterPrefix("zone7x")).toBe("zone7y");
    expect(afterPrefix("über")).toBe("übes");
    expect(usableWords(["a", "b"])).toBe(true);
    expect(usableWords(["a-b"])).toBe(false);
    expect(usableWords(Array.from({ length: 33 }, (_, i) => `w${i}`))).toBe(false);
    expect(searchTerms("' & | ! ( ) : * \" -- ;")).toEqual([]);
    expect(searchTerms("Ｏｒｄｅｒｓ Über")).toEqual(["orders", "über"]);
    expect(searchTerms("a ".repeat(50) + "b c d e f g h i j k l")).toHaveLength(10);
  });
});

describe.each(DATABASES)("search (%s)", (kind) => {
  const t = suiteServer(kind, {
    setup: async (t) => {
      await putOrFail(t, "/api/teams/logistics", { name: "Logistics", description: "Warehouses and carriers." });
      await putOrFail(t, "/api/teams/sales", { name: "Sales" });
      await putOrFail(t, "/api/datacontracts/shipments", {
        apiVersion: "v3.1.0",
        kind: "DataContract",
        id: "shipments",
        name: "Shipments",
        version: "1.0.0",
        status: "active",
        team: { name: "logistics" },
        description: { purpose: "Parcels handed to carriers." },
        schema: [{ name: "parcels", properties: [{ name: "rcvr_id", businessName: "Receiver", logicalType: "string", description: "Who receives the parcel" }] }],
      });
      await putOrFail(t, "/api/dataproducts/orders", {
        dataProductSpecification: "0.0.1",
        info: { title: "Orders", owner: "sales", description: "Orders placed in the web shop." },
        outputPorts: [{ id: "orders-warehouse", name: "Orders in the warehouse", dataContractId: "shipments" }],
        tags: ["core"],
      });
      await putOrFail(t, "/api/assets/orders-table", { info: { name: "orders_table", source: "snowflake", type: "table", description: "Raw orders" } });
    },
  });

  const search = async (query: string) => {
    const res = await t.api("GET", `/api/search?${new URLSearchParams({ query })}`);
    expect(res.status, res.text).toBe(200);
    return res.body as { query: string; results: Array<{ id: string; resourceType: string; name: string; ownerId: string | null; ownerName: string | null; url: string; description: string | null }> };
  };

  it("finds a contract by a field name inside it, with its owner and page", async () => {
    const answer = await search("rcvr_id");
    expect(answer.query).toBe("rcvr_id");
    expect(answer.results).toEqual([
      { id: "shipments", url: "http://steward.test/datacontracts/shipments", ownerId: "logistics", ownerName: "Logistics", name: "Shipments", resourceType: "DATA_CONTRACT", description: "Parcels handed to carriers." },
    ]);
    // The same words through a business name, and by prefix.
    expect((await search("receiv")).results.map((r) => r.id)).toEqual(["shipments"]);
  });

  it("ranks title matches first across kinds, and filters by kind, team and tag", async () => {
    const all = await search("orders");
    expect(all.results.map((r) => `${r.resourceType}:${r.id}`)).toEqual(expect.arrayContaining(["DATA_PRODUCT:orders", "DATA_ASSET:orders-table"]));
    // A match in the title outranks one inside the document.
    expect((await t.api("PUT", "/api/teams/receiving", { name: "Receiving" })).status).toBe(200);
    expect((await search("receiv")).results.map((r) => r.id)).toEqual(["receiving", "shipments"]);
    expect((await t.api("DELETE", "/api/teams/receiving")).status).toBe(204);
    expect((await t.api("GET", "/api/search?query=orders&resourceType=DATA_ASSET")).body.results.map((r: any) => r.id)).toEqual(["orders-table"]);
    expect((await t.api("GET", "/api/search?query=orders&teamId=sales")).body.results.map((r: any) => r.id)).toEqual(["orders"]);
    expect((await t.api("GET", "/api/search?query=orders&tag=core")).body.results.map((r: any) => r.id)).toEqual(["orders"]);
    // A port's name finds its product.
    expect((await search("warehouse")).results.map((r) => r.id)).toContain("orders");
  });

  it("finds what a write changed as soon as it answered, and forgets what was deleted", async () => {
    expect((await search("zeppelin")).results).toEqual([]);
    expect((await t.api("PUT", "/api/teams/air", { name: "Zeppelin freight" })).status).toBe(200);
    expect((await search("zeppelin")).results.map((r) => r.id)).toEqual(["air"]);
    expect((await t.api("PUT", "/api/teams/air", { name: "Air freight" })).status).toBe(200);
    expect((await search("zeppelin")).results).toEqual([]);
    expect((await t.api("DELETE", "/api/teams/air")).status).toBe(204);
    expect((await search("freight")).results).toEqual([]);
  });

  it("finds a document under the team it moved to, and not under the one it left", async () => {
    const product = (owner: string) => ({ dataProductSpecification: "0.0.1", info: { title: "Quayside", owner } });
    await putOrFail(t, "/api/dataproducts/quayside", product("sales"));
    const byTeam = async (teamId: string) => (await t.api("GET", `/api/search?query=quayside&teamId=${teamId}`)).body.results.map((r: any) => r.id);
    expect(await byTeam("sales")).toEqual(["quayside"]);
    await putOrFail(t, "/api/dataproducts/quayside", product("logistics"));
    expect(await byTeam("sales")).toEqual([]);
    expect(await byTeam("logistics")).toEqual(["quayside"]);
    expect((await t.api("DELETE", "/api/dataproducts/quayside")).status).toBe(204);
    expect(await byTeam("logistics")).toEqual([]);
  });

  it("ranks a bounded number of an organization's matches, counting only those its filters keep", async () => {
    // Another organization's matches, written first, and a match of another kind take no place.
    const other = await t.createOrganization("bounded-elsewhere");
    for (let i = 0; i < 3; i++) expect((await t.api("PUT", `/api/teams/other-${i}`, { name: `Bollard ${i}` }, { key: other.key })).status).toBe(200);
    await putOrFail(t, "/api/assets/bollard-table", { info: { name: "bollard_table", source: "snowflake", type: "table" } });
    for (let i = 0; i < 5; i++) await putOrFail(t, `/api/teams/bollard-${i}`, { name: `Bollard ${i}`, description: "bollard ".repeat(i) });
    const database = openDatabase(t.database.url);
    try {
      const search = (ranked: number, limit = 20) =>
        searchRepository.search(database.db, database.dialect, t.organizationId, { terms: ["bollard"], kinds: ["team"], offset: 0, limit, ranked });
      const all = (await search(1000)).map((r) => r.id);
      expect([...all].sort()).toEqual(["bollard-0", "bollard-1", "bollard-2", "bollard-3", "bollard-4"]);
      const bounded = (await search(3)).map((r) => r.id);
      expect(bounded).toHaveLength(3);
      for (const id of bounded) expect(all).toContain(id);
      // The bounded page is ranked as the full one ranks the same documents.
      expect(bounded).toEqual(all.filter((id) => bounded.includes(id)));
      expect(await search(3, 2)).toEqual((await search(3)).slice(0, 2));
    } finally {
      await database.close();
    }
  });

  it("forgets an organization's documents with the organization", async () => {
    const gone = await t.createOrganization("gone");
    expect((await t.api("PUT", "/api/teams/tugboat", { name: "Tugboat" }, { key: gone.key })).status).toBe(200);
    const database = openDatabase(t.database.url);
    try {
      const held = async () =>
        database.dialect === "postgres"
          ? Number((await sql<{ n: string }>`select count(*) as n from search_entries where organization_id = ${gone.organizationId}`.execute(database.db)).rows[0].n)
          : Number((await sql<{ n: number }>`select count(*) as n from resources_search where resources_search match 'tugboat'`.execute(database.db)).rows[0].n);
      expect(await held()).toBe(1);
      await database.db.deleteFrom("organizations").where("id", "=", gone.organizationId).execute();
      expect(await held()).toBe(0);
    } finally {
      await database.close();
    }
  });

  it("finds by a prefix that many words start with, and by one that no word does", async () => {
    await putOrFail(t, "/api/teams/plenty", { name: "Plenty", description: Array.from({ length: 40 }, (_, i) => `quokka${i}`).join(" ") });
    expect((await search("quokka")).results.map((r) => r.id)).toEqual(["plenty"]);
    expect((await search("quokka3")).results.map((r) => r.id)).toEqual(["plenty"]);
    expect((await search("quokka39")).results.map((r) => r.id)).toEqual(["plenty"]);
    expect((await search("quokkas")).results).toEqual([]);
    expect((await search("plenty quokkaz")).results).toEqual([]);
  });

  it("sees only its own organization", async () => {
    const other = await t.createOrganization("elsewhere");
    expect((await t.api("PUT", "/api/teams/rcvr", { name: "Receivers rcvr_id" }, { key: other.key })).status).toBe(200);
    expect((await search("rcvr_id")).results.map((r) => r.id)).toEqual(["shipments"]);
    expect((await t.api("GET", "/api/search?query=shipments", undefined, { key: other.key })).body.results).toEqual([]);
  });

  it("pages with a Link, and answers hostile or empty queries without a 500", async () => {
    for (let i = 0; i < 5; i++) await t.api("PUT", `/api/teams/page-${i}`, { name: `Pageable ${i}` });
    const first = await t.api("GET", "/api/search?query=pageable&pageSize=2");
    expect(first.body.results).toHaveLength(2);
    expect(first.headers.get("link")).toContain("p=1");
    const seen = new Set<string>();
    for (let p = 0; p < 3; p++) for (const r of (await t.api("GET", `/api/search?query=pageable&pageSize=2&p=${p}`)).body.results) seen.add(r.id);
    expect(seen.size).toBe(5);
    for (const query of ['"', "*", "' OR 1=1 --", "NEAR(", "a:* & !", "\u00a0", "x".repeat(1000)]) {
      const res = await t.api("GET", `/api/search?${new URLSearchParams({ query })}`);
      expect(res.status, `${query}: ${res.text}`).toBe(200);
    }
    for (const path of ["/api/search", "/api/search?query=", "/api/search?query=a&resourceType=NOPE", "/api/search?query=a&pageSize=0", "/api/search?query=a&pageSize=500", `/api/search?query=${"x".repeat(1001)}`]) {
      const res = await t.api("GET", path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/problem\+json/);
    }
  });
});
