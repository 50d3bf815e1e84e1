import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { DBT_ORDERS, launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/** A contract's versions and their changes on its page; the editor warns before a breaking save, naming the accesses. */

describe("contract versions in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const newPage = (email: string): Promise<Page> => openPage(browser, contexts, t.url, email);
  const versionCount = async () => ((await t.api("GET", "/api/datacontracts/orders-v1/versions")).body as unknown[]).length;

  /** The stored contract with another version string and schema, typed into the editor as JSON (which is YAML). */
  const fillDocument = async (page: Page, version: string, specification: string) => {
    const doc = (await t.api("GET", "/api/datacontracts/orders-v1")).body;
    const next = { ...doc, info: { ...doc.info, version }, schema: { ...doc.schema, specification } };
    await page.getByLabel("Document", { exact: true }).fill(JSON.stringify(next, null, 2));
  };

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("lists the versions saved and shows the changes between two of them", async () => {
    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/datacontracts/orders-v1/edit`);
    await page.getByRole("heading", { level: 1, name: "Edit Orders" }).waitFor();
    // Adding an optional column breaks nobody: saved without a warning.
    await fillDocument(page, "1.3.0", DBT_ORDERS.replace("  - name: order_lines", "      - name: coupon\n        data_type: varchar\n  - name: order_lines"));
    // Exact: the editor's own heading, "Edit Orders", would match "Orders" before the save is done.
    const contractHeading = page.getByRole("heading", { level: 1, name: "Orders", exact: true });
    expect(await contractHeading.count()).toBe(0);
    await page.getByRole("button", { name: "Save changes" }).click();
    await contractHeading.waitFor();
    expect(await versionCount()).toBe(2);

    const versions = page.getByRole("table", { name: "Versions, newest first" });
    await versions.getByRole("row").filter({ hasText: "#2 (1.3.0)" }).getByText(PEOPLE.provider).waitFor();
    await versions.getByRole("row").filter({ hasText: "#1 (1.2.0)" }).waitFor();
    await page.getByLabel("Compare from version").selectOption("1");
    await page.getByLabel("Compare to version").selectOption("2");
    await page.getByRole("button", { name: "Show changes" }).click();
    await page.getByRole("heading", { name: "Changes from #1 to #2" }).waitFor();
    const change = page.getByRole("list", { name: "Changes between the versions" }).getByRole("listitem");
    expect(await change.count()).toBe(1);
    const text = await change.textContent();
    expect(text).toContain("orders.coupon");
    expect(text).toContain("non-breaking");
  });

  it("warns before a breaking save, naming the approved access, and saves it only for an organization owner who confirms", async () => {
    const res = await t.api("POST", "/api/access", { info: { purpose: "Revenue by market" }, provider: { dataProductId: "orders", outputPortId: "orders-postgres" }, consumer: { teamId: "analytics" } });
    expect(res.status).toBe(201);
    const accessId = res.body.id as string;
    expect((await t.api("POST", `/api/access/${accessId}/approve`, {})).status).toBe(200);
    const before = await versionCount();

    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/datacontracts/orders-v1/edit`);
    await page.getByRole("heading", { level: 1, name: "Edit Orders" }).waitFor();
    // Dropping a column fails whoever selects it.
    await fillDocument(page, "1.3.0", DBT_ORDERS.replace("      - name: currency\n        data_type: char(3)\n        description: ISO 4217 code.\n", ""));
    await page.getByRole("button", { name: "Save changes" }).click();
    const warning = page.getByRole("alert").filter({ hasText: "This change is breaking" });
    await warning.waitFor();
    const breaking = await warning.getByRole("list", { name: "Breaking changes" }).textContent();
    expect(breaking).toContain("orders.currency");
    await warning.getByRole("list", { name: "Affected accesses" }).getByRole("link", { name: accessId }).waitFor();
    expect(await warning.getByRole("list", { name: "Affected accesses" }).textContent()).toContain("analytics");
    expect(await versionCount()).toBe(before);

    await warning.getByRole("button", { name: "Cancel" }).click();
    await warning.waitFor({ state: "detached" });
    expect(await versionCount()).toBe(before);

    // A member of the producing team cannot override the consumers: the server refuses, and says why.
    await page.getByRole("button", { name: "Save changes" }).click();
    await warning.getByRole("button", { name: "Save the breaking change" }).click();
    await warning.getByText("Nothing was saved").waitFor();
    await warning.getByRole("list", { name: "Affected accesses" }).getByRole("link", { name: accessId }).waitFor();
    expect(await versionCount()).toBe(before);

    // An organization owner may confirm it: then it is stored.
    const owner = await newPage(PEOPLE.owner);
    await owner.goto(`${t.url}/datacontracts/orders-v1/edit`);
    await owner.getByRole("heading", { level: 1, name: "Edit Orders" }).waitFor();
    await fillDocument(owner, "1.3.0", DBT_ORDERS.replace("      - name: currency\n        data_type: char(3)\n        description: ISO 4217 code.\n", ""));
    await owner.getByRole("button", { name: "Save changes" }).click();
    const ownerWarning = owner.getByRole("alert").filter({ hasText: "This change is breaking" });
    await ownerWarning.getByRole("button", { name: "Save the breaking change" }).click();
    await owner.getByRole("heading", { level: 1, name: "Orders", exact: true }).waitFor();
    expect(await versionCount()).toBe(before + 1);
  });
});
