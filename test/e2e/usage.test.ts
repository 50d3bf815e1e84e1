import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { sdkExport, sdkSpan } from "../../src/modules/usage/usage.fixtures.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/**
 * The product page and the access page show who used them, how often and when last, and the
 * product page the uses of its ports without an agreement (docs/lineage.md, "Usage").
 */

describe("usage on the product and access pages", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
    const body = { info: { purpose: "Revenue" }, provider: { dataProductId: "orders", outputPortId: "orders-postgres" }, consumer: { dataProductId: "revenue-dashboard" } };
    expect((await t.api("PUT", "/api/access/revenue", body)).status).toBe(200);
    const spans = [
      sdkSpan({ start: "2026-06-01T08:00:00.000Z", attributes: { "access.id": "revenue" } }),
      sdkSpan({ start: "2026-06-02T08:00:00.000Z", attributes: { "access.id": "revenue" } }),
      sdkSpan({ start: "2026-06-03T08:00:00.000Z", attributes: { "dataproduct.id": "orders", "consumer.team.id": "logistics" } }),
    ];
    const res = await t.api("POST", "/api/v1/traces", sdkExport("warehouse", spans));
    expect(res.body, res.text).toEqual({});
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  const rowsOf = async (page: import("playwright-core").Page) => {
    const table = page.getByRole("table", { name: "Who used it, most recent first" });
    await table.waitFor();
    return (await table.getByRole("row").allTextContents()).slice(1).map((r) => r.replace(/\s+/g, " ").trim());
  };

  it("lists each consumer of a data product with its uses and last use, and an access's own", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.provider);
    await page.goto(`${t.url}/dataproducts/orders`);
    await page.getByRole("heading", { level: 2, name: "Usage" }).waitFor();
    const rows = await rowsOf(page);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain("logistics");
    expect(rows[0]).toContain("Team");
    expect(rows[1]).toContain("revenue-dashboard");
    expect(rows[1]).toContain("Data product");
    expect(rows[1]).toMatch(/Data product\s*2/);
    await page.goto(`${t.url}/access/revenue`);
    await page.getByRole("heading", { level: 2, name: "Usage" }).waitFor();
    const accessRows = await rowsOf(page);
    expect(accessRows).toHaveLength(1);
    expect(accessRows[0]).toMatch(/revenue-dashboard\s*Data product\s*2/);
    await page.getByRole("link", { name: "revenue-dashboard" }).last().click();
    await page.waitForURL(`${t.url}/dataproducts/revenue-dashboard`);
    await page.getByText("No use has been reported yet.").waitFor();
  });

  it("lists the uses of a product's ports without an agreement, and says so where there are none", async () => {
    // Logistics queries the orders port with no access of its own.
    const span = sdkSpan({ start: "2026-06-04T08:00:00.000Z", attributes: { "dataproduct.id": "orders", "outputport.id": "orders-postgres", "consumer.team.id": "logistics" } });
    expect((await t.api("POST", "/api/v1/traces", sdkExport("bi-gateway", [span]))).body).toEqual({});
    const page = await openPage(browser, contexts, t.url, PEOPLE.provider);
    await page.goto(`${t.url}/dataproducts/orders`);
    const uses = page.getByRole("table", { name: "Uses without an agreement" });
    await uses.waitFor();
    // The header, the dashboard's uses under its access (not approved yet, so not active), and logistics'.
    const rows = uses.getByRole("row");
    expect(await rows.count()).toBe(3);
    const row = rows.filter({ hasText: "bi-gateway" });
    await row.getByRole("cell", { name: "orders-postgres" }).waitFor();
    await row.getByRole("link", { name: "logistics" }).waitFor();
    expect(await row.getByRole("cell", { name: /bi-gateway/ }).count()).toBe(1);
    expect(await row.getByRole("time").getAttribute("datetime")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await page.goto(`${t.url}/dataproducts/shipments`);
    await page.getByRole("region", { name: "Uses without an agreement" }).getByText("No reported use of this data product's output ports lacked an agreement.").waitFor();
  });
});
