import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGE_KINDS, type PageKind } from "../../src/platform/http/page-paths.js";
import { BASE_CONTRACT, SHOWS_ID, seedOwners, WRITE } from "../helpers/every-kind.js";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/** The page every `location-html` names opens in a browser and shows that resource (docs/product.md §3, §8). */

const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });

describe("the pages location-html names, in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
    await seedOwners(t);
    page = await openPage(browser, contexts, t.url, PEOPLE.owner);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  /** Opens a location-html on the test server, as a person who clicks it would. */
  const follow = async (locationHtml: string | null) => {
    const url = new URL(locationHtml!);
    await page.goto(t.url + url.pathname + url.search);
  };

  /** The page's heading: the resource's title, or its id where it has no title of its own. */
  const headingOf = (kind: PageKind, id: string, title: string) => (kind === "test-results" ? `Test run of ${BASE_CONTRACT}` : SHOWS_ID.has(kind) ? id : title);

  it.each(PAGE_KINDS)("opens the pages of %s, also under the ids . and ..", async (kind) => {
    // Tags refuse `.` and `..` as ids (docs/security.md, "Tags").
    for (const id of kind === "tags" ? [`${kind}-1`] : [`${kind}-1`, "..", "."]) {
      const title = `The ${kind} ${id}`;
      const written = await WRITE[kind](t, id, title);
      expect(written.status, written.text).toBe(200);
      await follow(written.headers.get("location-html"));
      await page.getByRole("heading", { level: 1, name: headingOf(kind, id, title), exact: true }).waitFor();
      expect(await page.locator(".facts").first().textContent(), `${kind} ${id}`).toContain(kind === "access" ? BASE_CONTRACT : id);
      if (kind === "test-results") await page.getByRole("cell", { name: title }).waitFor();
    }
  });

  it("shows an asset with its assigned tags and columns, linked to the tag's page", async () => {
    await WRITE.tags(t, "Governance/PII", "");
    const written = await WRITE.assets(t, "orders_table", "orders");
    expect((await t.api("PUT", "/api/assets/orders_table/assigned-tags/Governance/PII")).status).toBe(200);
    await follow(written.headers.get("location-html"));
    await page.getByRole("heading", { level: 1, name: "orders" }).waitFor();
    await page.getByRole("cell", { name: "order_id" }).waitFor();
    await page.getByRole("link", { name: "Governance/PII" }).click();
    await page.getByRole("heading", { level: 1, name: "Governance/PII" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/tags/Governance%2FPII");
    await page.getByText("Personal data").waitFor();
  });

  it("shows a test run's checks, reached from its contract's page", async () => {
    const written = await WRITE["test-results"](t, "run-from-contract", "Check that order_id is present");
    expect(written.status).toBe(200);
    await page.goto(`${t.url}/datacontracts/${BASE_CONTRACT}`);
    await page.getByRole("heading", { name: "Latest test results" }).waitFor();
    // The list is newest first: the run just published is the first row.
    await page.getByRole("region", { name: "Latest test results" }).getByRole("link").first().click();
    await page.getByRole("heading", { level: 1, name: `Test run of ${BASE_CONTRACT}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/test-results/run-from-contract");
    await page.getByRole("cell", { name: "order_id is missing" }).waitFor();
  });

  it("reaches the catalog and connectors from the menus", async () => {
    await nav(page, "Catalog").click();
    await page.getByRole("heading", { level: 1, name: "Assets" }).waitFor();
    await page.getByRole("navigation", { name: "Catalog" }).getByRole("link", { name: "Definitions" }).click();
    await page.getByRole("heading", { level: 1, name: "Definitions" }).waitFor();
    await page.getByRole("link", { name: "The definitions definitions-1" }).click();
    await page.getByRole("heading", { level: 1, name: "The definitions definitions-1" }).waitFor();
    await nav(page, "Settings").click();
    await page.getByRole("navigation", { name: "Organization settings" }).getByRole("link", { name: "Connectors" }).click();
    await page.getByRole("link", { name: "connectors-1" }).click();
    await page.getByText("evt-42").first().waitFor();
  });
});
