import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { createTeamKey, suiteServer } from "../../../test/helpers/suite-server.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function assetTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`assets (%s)${check.label}`, (kind) => {
    let teamKey: string;
    const t = suiteServer(kind, {
      teams: { sales: "Sales", search: "Search" },
      setup: async (t) => {
        teamKey = await createTeamKey(t, "sales", "sales");
        // An asset's assigned tag must exist.
        for (const tag of ["governance/internal", "pii", "stale", "fresh"]) expect((await t.api("PUT", `/api/tags/${tag}`, { owner: "sales" })).status).toBe(200);
      },
    });

    const events = async () => ((await t.api("GET", "/api/events")).body as any[]).map((e) => `${e.data.id}:${e.type.split(".").pop()}`);
    const orders = {
      info: { source: "snowflake", sourceId: "ORDERDB.PUBLIC.ORDERS", type: "snowflake_table", name: "ORDERS", owner: "sales", status: "active" },
      custom: { account: "acme", database: "ORDERDB" },
      columns: [
        { name: "ORDER_ID", type: "VARCHAR", primaryKey: true },
        { name: "ADDRESS", type: "OBJECT", properties: [{ name: "CITY", type: "VARCHAR", tags: ["pii"] }] },
        { name: "ITEMS", type: "ARRAY", items: { name: "ITEM", type: "OBJECT" } },
      ],
      relationships: [{ relationshipType: "parent", assetId: "orderdb-public" }],
      tags: ["pii:true"],
      links: { Snowflake: "https://app.snowflake.com/orders" },
    };

    it("creates with PUT after a 404, answers 200 with location-html, and reads back in the reference shape", async () => {
      expect((await t.api("GET", "/api/assets/orders")).status).toBe(404);
      const put = await t.api("PUT", "/api/assets/orders", { id: "orders", ...orders });
      expect(put.status).toBe(200);
      expect(put.headers.get("location-html")).toBe("http://steward.test/assets/orders");
      const read = await t.api("GET", "/api/assets/orders");
      expect(read.body).toEqual({ id: "orders", ...orders });
      check.answer("GET", "/api/assets/{id}", 200, read.body);
      const list = await t.api("GET", "/api/assets");
      check.answer("GET", "/api/assets", 200, list.body);
      expect((await t.api("PUT", "/api/assets/orders", { ...orders, info: { ...orders.info, status: "deprecated" } })).status).toBe(200);
      expect((await events()).filter((e) => e.startsWith("orders:"))).toEqual(["orders:AssetCreatedEvent", "orders:AssetUpdatedEvent"]);
    });

    it("keeps assigned tags apart from what a synchronizer sends", async () => {
      expect((await t.api("PUT", "/api/assets/orders/assigned-tags/governance/internal")).body).toEqual(["governance/internal"]);
      expect((await t.api("PUT", "/api/assets/orders/assigned-tags/pii")).body).toEqual(["governance/internal", "pii"]);
      // Assigning twice changes nothing and tells no one.
      const before = (await events()).length;
      expect((await t.api("PUT", "/api/assets/orders/assigned-tags/pii")).status).toBe(200);
      expect((await events()).length).toBe(before);
      const tags = await t.api("GET", "/api/assets/orders/assigned-tags");
      expect(tags.body).toEqual(["governance/internal", "pii"]);
      check.answer("GET", "/api/assets/{id}/assigned-tags", 200, tags.body);
      // A synchronizer's PUT neither drops nor sets them.
      await t.api("PUT", "/api/assets/orders", { ...orders, assignedTags: ["forged"] });
      expect((await t.api("GET", "/api/assets/orders")).body.assignedTags).toEqual(["governance/internal", "pii"]);
      expect((await t.api("DELETE", "/api/assets/orders/assigned-tags/governance/internal")).body).toEqual(["pii"]);
      expect((await t.api("GET", "/api/assets/orders")).body.assignedTags).toEqual(["pii"]);
      expect((await events()).at(-1)).toBe("orders:AssetUpdatedEvent");
      const missing = await t.api("PUT", "/api/assets/nope/assigned-tags/pii");
      expect(missing.status).toBe(422);
      expect(missing.headers.get("content-type")).toMatch(/problem\+json/);
      expect((await t.api("GET", "/api/assets/nope/assigned-tags")).status).toBe(404);
    });

    it("changes assigned tags only of the version If-Match names; 412 and nothing changed otherwise", async () => {
      const etag = (await t.api("GET", "/api/assets/orders")).headers.get("etag")!;
      const before = (await events()).length;
      for (const method of ["PUT", "DELETE"]) {
        const res = await t.api(method, "/api/assets/orders/assigned-tags/pii", undefined, { headers: { "if-match": '"stale"' } });
        expect(res.status, res.text).toBe(412);
        expect(res.headers.get("content-type")).toMatch(/problem\+json/);
      }
      expect((await t.api("PUT", "/api/assets/orders/assigned-tags/stale", undefined, { headers: { "if-match": '"stale"' } })).status).toBe(412);
      expect((await t.api("GET", "/api/assets/orders")).headers.get("etag")).toBe(etag);
      expect((await events()).length).toBe(before);
      const assigned = await t.api("PUT", "/api/assets/orders/assigned-tags/fresh", undefined, { headers: { "if-match": etag } });
      expect(assigned.body).toEqual(["pii", "fresh"]);
      // The answer carries the asset's new tag, so a client can chain the next conditional change.
      const changed = assigned.headers.get("etag")!;
      expect(changed).not.toBe(etag);
      expect((await t.api("GET", "/api/assets/orders")).headers.get("etag")).toBe(changed);
      expect((await t.api("DELETE", "/api/assets/orders/assigned-tags/fresh", undefined, { headers: { "if-match": etag } })).status).toBe(412);
      expect((await t.api("DELETE", "/api/assets/orders/assigned-tags/fresh", undefined, { headers: { "if-match": changed } })).body).toEqual(["pii"]);
    });

    it("answers 400 for an empty tag id, and changes nothing", async () => {
      const etag = (await t.api("GET", "/api/assets/orders")).headers.get("etag");
      for (const method of ["PUT", "DELETE"]) {
        const res = await t.api(method, "/api/assets/orders/assigned-tags/");
        expect(res.status, `${method}: ${res.text}`).toBe(400);
        expect(res.body.detail).toMatch(/names an empty id/);
        expect((await t.api(method, "/api/assets/orders/assigned-tags//")).status).toBe(400);
      }
      // Without the slash the path names the list, which only GET reads.
      const list = await t.api("PUT", "/api/assets/orders/assigned-tags");
      expect(list.status).toBe(405);
      expect(list.headers.get("allow")).toBe("GET, HEAD");
      expect((await t.api("GET", "/api/assets/orders")).headers.get("etag")).toBe(etag);
    });

    it("validates assets and their owner, naming every problem", async () => {
      const res = await t.api("PUT", "/api/assets/bad", { info: { owner: "nobody" }, columns: [{ name: "x" }, { name: "y", type: 3 }] });
      expect(res.status).toBe(422);
      expect(res.body.violations.map((v: any) => v.field).sort()).toEqual(["columns[0].type", "columns[1].type"]);
      const owner = await t.api("PUT", "/api/assets/bad", { info: { owner: "nobody" } });
      expect(owner.status).toBe(422);
      expect(owner.body.violations).toEqual([{ field: "info.owner", message: expect.stringContaining("nobody") }]);
      expect((await t.api("GET", "/api/assets/bad")).status).toBe(404);
    });

    it("lets a team key change only its team's assets; unowned ones only organization keys", async () => {
      expect((await t.api("PUT", "/api/assets/sales-view", { info: { owner: "sales" } }, { key: teamKey })).status).toBe(200);
      expect((await t.api("PUT", "/api/assets/search-view", { info: { owner: "search" } }, { key: teamKey })).status).toBe(403);
      expect((await t.api("PUT", "/api/assets/unowned", { info: { name: "x" } }, { key: teamKey })).status).toBe(403);
      expect((await t.api("PUT", "/api/assets/unowned", { info: { name: "x" } })).status).toBe(200);
      expect((await t.api("PUT", "/api/assets/unowned/assigned-tags/pii", undefined, { key: teamKey })).status).toBe(403);
      // Giving it away to another team is a change of something it would no longer own.
      expect((await t.api("PUT", "/api/assets/sales-view", { info: { owner: "search" } }, { key: teamKey })).status).toBe(403);
      expect((await t.api("GET", "/api/assets/unowned", undefined, { key: teamKey })).status).toBe(200);
      expect((await t.api("GET", "/api/assets?owner=sales")).body.map((a: any) => a.id)).toEqual(["orders", "sales-view"]);
    });

    it("keeps organizations apart", async () => {
      const other = await t.createOrganization(`assets-${kind}`);
      expect((await t.api("GET", "/api/assets/orders", undefined, { key: other.key })).status).toBe(404);
      expect((await t.api("DELETE", "/api/assets/orders", undefined, { key: other.key })).status).toBe(404);
      expect((await t.api("PUT", "/api/assets/orders/assigned-tags/x", undefined, { key: other.key })).status).toBe(422);
      expect((await t.api("GET", "/api/assets", undefined, { key: other.key })).body).toEqual([]);
    });

    it("deletes with an AssetDeletedEvent", async () => {
      expect((await t.api("DELETE", "/api/assets/unowned")).status).toBe(204);
      expect((await t.api("GET", "/api/assets/unowned")).status).toBe(404);
      expect((await events()).at(-1)).toBe("unowned:AssetDeletedEvent");
    });

    it("stores a YAML body's __proto__ key as a member of the document, never as its prototype", async () => {
      // YAML, unlike JSON (refused by the body parser), hands `__proto__` over as an ordinary key.
      const raw = "__proto__:\n  custom:\n    forged: true\ninfo:\n  source: snowflake\n  sourceId: X.Y.Z\n  type: snowflake_table\n  name: Z\n";
      const put = await t.api("PUT", "/api/assets/proto", undefined, { contentType: "application/yaml", raw });
      expect(put.status, put.text).toBe(200);
      const read = await t.api("GET", "/api/assets/proto");
      expect(read.text).toBe('{"__proto__":{"custom":{"forged":true}},"info":{"source":"snowflake","sourceId":"X.Y.Z","type":"snowflake_table","name":"Z"},"id":"proto"}');
    });
  });
}
