import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/**
 * Every page of the web app opens without a console error and without a failed request: a page
 * asks only for what exists (an access without provisioning reads its record from the access, not
 * from a route that answers 404).
 */

describe("every page, without console errors or failed requests", { timeout: 120_000 }, () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let accessId = "";
  let runId = "";

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
    const access = await t.api("POST", "/api/access", { info: { purpose: "Revenue by market" }, provider: { dataProductId: "orders", outputPortId: "orders-postgres" }, consumer: { teamId: "analytics" } });
    expect(access.status, access.text).toBe(201);
    accessId = access.body.id;
    expect((await t.api("POST", `/api/access/${accessId}/approve`, {})).status).toBe(200);
    const run = await t.api("POST", "/api/test-results", { dataContractId: "orders-v1", server: "production", result: "passed", checks: [{ type: "schema", result: "passed", model: "orders" }] });
    expect(run.status, run.text).toBe(200);
    runId = run.body.id;
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  const watch = (page: Page) => {
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText ?? ""}`));
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()}: ${r.request().method()} ${r.url()}`);
    });
    return problems;
  };

  it("opens each page as an organization owner", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.owner);
    // The page signing in leads to is still loading: let it finish, or leaving it aborts its requests.
    await page.waitForLoadState("networkidle");
    const problems = watch(page);
    const pages = [
      "/",
      "/dataproducts",
      "/dataproducts/new",
      "/dataproducts/orders",
      "/dataproducts/orders/edit",
      "/datacontracts",
      "/datacontracts/new",
      "/datacontracts/orders-v1",
      "/datacontracts/orders-v1/edit",
      "/teams",
      "/teams/new",
      "/teams/payments",
      "/teams/analytics",
      "/teams/payments/edit",
      "/access",
      `/access/${accessId}`,
      "/assets",
      "/sourcesystems",
      "/definitions",
      "/tags",
      "/test-results",
      `/test-results/${runId}`,
      "/connectors",
      "/activity",
      "/lineage",
      "/lineage?dataProductId=orders",
      "/settings",
      "/settings/api-keys",
      "/settings/members",
      "/settings/identity",
    ];
    for (const path of pages) {
      const before = problems.length;
      await page.goto(`${t.url}${path}`);
      await page.getByRole("heading", { level: 1 }).first().waitFor();
      await page.waitForLoadState("networkidle");
      expect(problems.slice(before), path).toEqual([]);
    }
  });

  it("names the contract version an access was granted under, what a team consumes, and offers the product form's known statuses, a port table and contracts by name", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.owner);
    await page.goto(`${t.url}/access/${accessId}`);
    await page.getByRole("link", { name: "version 1.2.0" }).click();
    await page.getByRole("heading", { level: 1, name: "Orders", exact: true }).waitFor();
    await page.getByRole("table", { name: "Versions, newest first" }).getByRole("row").filter({ hasText: "(1.2.0)" }).getByText("the version asked for").waitFor();

    await page.goto(`${t.url}/teams/analytics`);
    const consumed = page.getByRole("region", { name: "Data it consumes" });
    await consumed.getByRole("link", { name: "Revenue by market" }).waitFor();

    await page.goto(`${t.url}/dataproducts/orders/edit`);
    const status = page.getByLabel("Status", { exact: true });
    expect(await status.evaluate((e) => e.tagName)).toBe("SELECT");
    expect(await status.locator("option").allTextContents()).toEqual(["No status", "proposed", "in development", "active", "deprecated", "retired"]);
    await page.getByLabel("Table", { exact: true }).fill("orders");
    const picker = page.getByLabel("Data contract", { exact: true });
    expect(await picker.locator("option:checked").textContent()).toBe("Orders 1.2.0");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { level: 1, name: "Orders", exact: true }).waitFor();
    const product = (await t.api("GET", "/api/dataproducts/orders")).body;
    expect(product.outputPorts[0].server).toMatchObject({ table: "orders", schema: "orders" });
  });
});
