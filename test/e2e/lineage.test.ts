import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";
import { AIRFLOW_JOB, airflowLoadOrders, SPARK_JOB, sparkDailyRevenue } from "./lineage-events.js";

/**
 * Lineage in the web app (docs/lineage.md, "In the web app"): runs reported through the API show
 * on the data product pages as upstream and downstream products and jobs, the lineage view draws
 * them, and the provider's page lists the read without an agreement.
 */

const run = (n: number) => `0190a3c4-1f2e-7d00-8000-${String(n).padStart(12, "0")}`;

// A minute a test: each walks several pages in a browser, and on a busy two-core machine one took 25 s.
describe("lineage on the data product pages", { timeout: 60_000 }, () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
    const put = async (path: string, body: unknown) => {
      const res = await t.api("PUT", path, body);
      expect(res.status, res.text).toBe(200);
    };
    // The shipments database and the dashboard's files become output ports, so both ends of the orders table map to products.
    await put("/api/dataproducts/shipments", {
      dataProductSpecification: "0.0.1",
      info: { title: "Shipments", owner: "logistics", status: "proposed", description: "Parcels handed to carriers." },
      outputPorts: [{ id: "parcels-db", name: "Parcels (MySQL)", type: "mysql", server: { host: "logistics-db", database: "logistics" } }],
    });
    await put("/api/dataproducts/revenue-dashboard", {
      dataProductSpecification: "0.0.1",
      info: { title: "Revenue dashboard", owner: "analytics", status: "in development", description: "Daily revenue by market." },
      outputPorts: [{ id: "daily-files", name: "Daily revenue files", type: "s3", server: { location: "s3://analytics-lake/revenue/" } }],
    });
    // The Airflow task names no product; the Spark job runs for the dashboard, with no access to the orders port.
    const airflow = await t.api("POST", "/api/v1/lineage", [airflowLoadOrders(run(1), "START", "2026-06-01T05:00:00.000Z"), airflowLoadOrders(run(1), "COMPLETE", "2026-06-01T05:04:00.000Z")]);
    expect(airflow.body, airflow.text).toEqual({ accepted: 2, violations: 0 });
    const spark = await t.api("POST", "/api/v1/lineage?dataProductId=revenue-dashboard", sparkDailyRevenue(run(2), "2026-06-01T06:00:00.000Z"));
    expect(spark.body, spark.text).toEqual({ accepted: 1, violations: 1 });
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
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()}: ${r.request().method()} ${r.url()}`);
    });
    return problems;
  };

  it("shows the provider upstream and downstream products and jobs, and the read without an agreement", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.provider);
    await page.waitForLoadState("networkidle");
    const problems = watch(page);
    await page.goto(`${t.url}/dataproducts/orders`);
    await page.getByRole("heading", { level: 1, name: "Orders" }).waitFor();

    const upstream = page.getByRole("region", { name: "Upstream" });
    await upstream.getByRole("list", { name: "Upstream data products" }).getByRole("link", { name: "shipments" }).waitFor();
    await upstream.getByRole("list", { name: "Upstream jobs" }).getByRole("link", { name: AIRFLOW_JOB.name }).waitFor();
    const downstream = page.getByRole("region", { name: "Downstream" });
    await downstream.getByRole("list", { name: "Downstream data products" }).getByRole("link", { name: "revenue-dashboard" }).waitFor();
    await downstream.getByRole("list", { name: "Downstream jobs" }).getByRole("link", { name: SPARK_JOB.name }).waitFor();
    // Neither side lists the other's job.
    expect(await upstream.getByRole("link", { name: SPARK_JOB.name }).count()).toBe(0);
    expect(await downstream.getByRole("link", { name: AIRFLOW_JOB.name }).count()).toBe(0);

    // The read without an agreement: day, job, port, consumer, and a link to the job's lineage.
    const reads = page.getByRole("table", { name: "Reads without an agreement" });
    const row = reads.getByRole("row").filter({ hasText: SPARK_JOB.name });
    await row.waitFor();
    expect(await reads.getByRole("row").count()).toBe(2);
    await row.getByRole("cell", { name: /orders-postgres/ }).waitFor();
    await row.getByRole("link", { name: "revenue-dashboard" }).waitFor();
    await row.getByRole("link", { name: "analytics" }).waitFor();
    expect(await row.getByRole("time").getAttribute("datetime")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await row.getByRole("link", { name: `Lineage of ${SPARK_JOB.name}` }).click();
    await page.waitForURL(`${t.url}/lineage?job=${encodeURIComponent(`${SPARK_JOB.namespace}/${SPARK_JOB.name}`)}`);
    await page.getByRole("heading", { level: 1, name: `Lineage of ${SPARK_JOB.namespace}/${SPARK_JOB.name}` }).waitFor();
    await page.getByRole("group", { name: /^Lineage graph of / }).getByRole("link", { name: "shop.orders.orders" }).waitFor();
    expect(problems).toEqual([]);
  });

  it("draws the lineage view of a product, and walks it by its links", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.consumer);
    await page.waitForLoadState("networkidle");
    const problems = watch(page);
    await page.goto(`${t.url}/dataproducts/revenue-dashboard`);
    await page.getByRole("heading", { level: 1, name: "Revenue dashboard" }).waitFor();
    // The dashboard's upstream is the orders product and, one job further, the shipments product.
    const upstream = page.getByRole("region", { name: "Upstream" });
    await upstream.getByRole("link", { name: "orders", exact: true }).waitFor();
    await upstream.getByRole("link", { name: "shipments", exact: true }).waitFor();
    await page.getByRole("region", { name: "Downstream" }).getByText("Nothing reported reads its output ports.").waitFor();
    await page.getByRole("link", { name: "Open the lineage view" }).click();
    await page.waitForURL(`${t.url}/lineage?dataProductId=revenue-dashboard`);

    const graph = page.getByRole("group", { name: "Lineage graph of revenue-dashboard" });
    await graph.waitFor();
    // Depth 2 from the dashboard's files: the Spark job, the orders table, the Airflow task and its two inputs.
    expect(await graph.locator("[data-node]").count()).toBe(6);
    expect(await graph.locator("svg path:not(marker path)").count()).toBe(5);
    // Data flows left to right: the Airflow task is drawn left of the Spark job, which is left of the files.
    const left = async (id: string) => (await graph.locator(`[data-node="${id}"]`).boundingBox())!.x;
    const airflowX = await left(`job:${AIRFLOW_JOB.namespace}/${AIRFLOW_JOB.name}`);
    const sparkX = await left(`job:${SPARK_JOB.namespace}/${SPARK_JOB.name}`);
    expect(airflowX).toBeLessThan(sparkX);
    expect(sparkX).toBeLessThan(await left("dataset:s3://analytics-lake//revenue/daily"));

    // One step: only the Spark job and its two datasets.
    await page.getByLabel("Steps each way").selectOption("1");
    await page.waitForURL(/depth=1/);
    await expect.poll(() => graph.locator("[data-node]").count()).toBe(3);

    // A product's name in a node leads to its page.
    await graph.getByRole("link", { name: "orders · orders-postgres" }).click();
    await page.getByRole("heading", { level: 1, name: "Orders" }).waitFor();
    expect(problems).toEqual([]);
  });

  it("says so where nothing is reported, and names a bad starting point", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.owner);
    await page.goto(`${t.url}/dataproducts/shipments`);
    await page.getByRole("heading", { level: 1, name: "Shipments" }).waitFor();
    await page.getByRole("region", { name: "Reads without an agreement" }).getByText("No pipeline has read this data product's output ports without an agreement.").waitFor();
    await page.goto(`${t.url}/lineage?job=nonamespace`);
    await page.getByRole("alert").getByText(/must be written <namespace>\/<name>/).waitFor();
    await page.goto(`${t.url}/lineage`);
    await page.getByLabel("Name", { exact: true }).fill(`${AIRFLOW_JOB.namespace}/${AIRFLOW_JOB.name}`);
    await page.getByLabel("Start at").selectOption("job");
    await page.getByRole("button", { name: "Show" }).click();
    await page.getByRole("group", { name: `Lineage graph of ${AIRFLOW_JOB.namespace}/${AIRFLOW_JOB.name}` }).waitFor();
  });

  it("shows names from events as text and links only to its own pages", async () => {
    const name = `"><img src=x onerror="window.owned=1">`;
    const hostile = { ...airflowLoadOrders(run(3), "COMPLETE", "2026-06-02T05:00:00.000Z"), job: { namespace: "evil", name }, inputs: [{ namespace: "javascript:alert(1)", name: "<b>bold</b>" }], outputs: [] };
    expect((await t.api("POST", "/api/v1/lineage", hostile)).status).toBe(200);
    const page = await openPage(browser, contexts, t.url, PEOPLE.owner);
    await page.goto(`${t.url}/lineage?job=${encodeURIComponent(`evil/${name}`)}`);
    const graph = page.getByRole("group", { name: `Lineage graph of evil/${name}` });
    await graph.getByRole("link", { name, exact: true }).waitFor();
    await graph.getByRole("link", { name: "<b>bold</b>", exact: true }).waitFor();
    expect(await graph.locator("img, b").count()).toBe(0);
    expect(await page.evaluate("window.owned")).toBeUndefined();
    const hrefs = await graph.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href).toMatch(/^\/(lineage\?|dataproducts\/)/);
  });
});
