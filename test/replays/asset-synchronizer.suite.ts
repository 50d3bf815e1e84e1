import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../helpers/databases.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";
import type { StandardsCheck } from "../helpers/checks.js";

/**
 * The reference SDK's asset synchronizer, request by request: for each asset a GET, and on 404
 * a PUT of the whole asset, with the key in x-api-key and a JSON body.
 */
/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function assetSynchronizerReplay(check: StandardsCheck): void {
  describe.each(DATABASES)(`replay: the SDK's asset synchronizer (%s)${check.label}`, (kind) => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(kind, { eventTypePrefix: "com.datamesh-manager.events" });
    });
    afterAll(() => t?.close());

    const asset = (i: number) => ({
      id: `unity-main-sales-orders-${i}`,
      info: { source: "unity", sourceId: `main.sales.orders_${i}`, type: "unity_table", name: `orders_${i}`, qualifiedName: `main.sales.orders_${i}` },
      columns: [
        { name: "order_id", type: "STRING", description: "Order number" },
        { name: "amount", type: "DECIMAL(10,2)" },
      ],
    });
    const headers = { "user-agent": "python-requests/2.32.3", accept: "application/json" };

    it("syncs 300 assets: GET 404, PUT 200, then GET 200 in the reference shape, and one event each", async () => {
      for (let i = 0; i < 300; i++) {
        const a = asset(i);
        const path = `/api/assets/${encodeURIComponent(a.id)}`;
        const missing = await request(t.url, "GET", path, undefined, { key: t.key, headers });
        expect(missing.status).toBe(404);
        const put = await request(t.url, "PUT", path, a, { key: t.key, headers });
        expect(put.status, put.text).toBe(200);
      }
      for (const i of [0, 150, 299]) {
        const read = await request(t.url, "GET", `/api/assets/${asset(i).id}`, undefined, { key: t.key, headers });
        expect(read.body).toEqual(asset(i));
        check.answer("GET", "/api/assets/{id}", 200, read.body);
      }
      // A second sync run finds every asset and changes nothing.
      const again = await request(t.url, "PUT", `/api/assets/${asset(7).id}`, asset(7), { key: t.key, headers });
      expect(again.status).toBe(200);
      const page = await request(t.url, "GET", "/api/assets", undefined, { key: t.key, headers });
      expect(page.body).toHaveLength(300);
      check.answer("GET", "/api/assets", 200, page.body);
      const events = (await request(t.url, "GET", "/api/events", undefined, { key: t.key })).body as any[];
      expect(events).toHaveLength(300);
      expect(new Set(events.map((e) => e.type))).toEqual(new Set(["com.datamesh-manager.events.AssetCreatedEvent"]));
    }, 240_000);
  });
}
