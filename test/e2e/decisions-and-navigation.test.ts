import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/** Access decisions with comments and who made them; navigation on a phone; filters in the address. */

describe("decisions and navigation in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const newPage = (email: string, viewport?: { width: number; height: number }): Promise<Page> => openPage(browser, contexts, t.url, email, viewport);
  const requestAccess = async (purpose: string): Promise<string> => {
    const res = await t.api("POST", "/api/access", { info: { purpose }, provider: { dataProductId: "orders", outputPortId: "orders-postgres" }, consumer: { teamId: "analytics" } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const historyRow = (page: Page, kind: string) => page.getByRole("list", { name: "History, oldest first" }).getByRole("listitem").filter({ hasText: kind });

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("approves with a comment; the history names who approved, with the comment", async () => {
    const id = await requestAccess("Weekly churn model");
    const provider = await newPage(PEOPLE.provider);
    await provider.goto(`${t.url}/access/${id}`);
    await provider.getByRole("heading", { level: 1, name: "Weekly churn model" }).waitFor();
    // Not started yet: it starts on approval, and has no end.
    expect(await provider.locator(".facts").textContent()).toMatch(/Starton approval.*Endopen-ended/);
    await provider.getByRole("button", { name: "Approve" }).click();
    const dialog = provider.getByRole("dialog", { name: "Approve access request" });
    await dialog.getByLabel("Comment (optional)").fill("Fine for the churn model; no exports.");
    await dialog.getByRole("button", { name: "Approve" }).click();
    await provider.getByRole("status").getByText("Approved: “Weekly churn model”. It is active.").waitFor();
    const approved = historyRow(provider, "Approved");
    await approved.waitFor();
    expect(await approved.textContent()).toContain(`by you (${PEOPLE.provider})`);
    expect(await approved.textContent()).toContain("Fine for the churn model; no exports.");
    await provider.getByText("Active since").waitFor();
    expect((await t.api("GET", `/api/access/${id}`)).body.info).toMatchObject({ status: "approved", active: true });

    // Another person reads the same history with the provider's address as the actor.
    const owner = await newPage(PEOPLE.owner);
    await owner.goto(`${t.url}/access/${id}`);
    const seen = historyRow(owner, "Approved");
    await seen.waitFor();
    expect(await seen.textContent()).toContain(`by ${PEOPLE.provider}`);
    expect(await historyRow(owner, "Requested").textContent()).toMatch(/by API key/);

    // Cancel asks first, takes a comment, and ends the access; it stays approved, with an end.
    await owner.getByRole("button", { name: "Cancel access" }).click();
    const cancel = owner.getByRole("dialog", { name: "Cancel access" });
    await cancel.getByLabel("Comment (optional)").fill("The model was retired.");
    await cancel.getByRole("button", { name: "Cancel access" }).click();
    await historyRow(owner, "Canceled").getByText("The model was retired.").waitFor();
    const after = (await t.api("GET", `/api/access/${id}`)).body.info;
    expect(after).toMatchObject({ status: "approved", active: false });
    expect(after.canceledAt).toBeTruthy();
    expect(await owner.getByRole("button", { name: "Cancel access" }).count()).toBe(0);
  });

  it("rejects only after a confirmation, with a comment, and shows it in the history", async () => {
    const id = await requestAccess("Export every customer's orders");
    const provider = await newPage(PEOPLE.provider);
    await provider.goto(`${t.url}/access`);
    const row = provider.getByRole("row", { name: /Export every customer's orders/ });
    await row.getByRole("button", { name: /Reject/ }).click();
    const dialog = provider.getByRole("dialog", { name: "Reject access request" });
    expect(await dialog.textContent()).toContain("cannot be undone");
    // Backing out changes nothing.
    await dialog.getByRole("button", { name: "Back" }).click();
    expect((await t.api("GET", `/api/access/${id}`)).body.info.status).toBe("requested");

    await row.getByRole("button", { name: /Reject/ }).click();
    await dialog.getByLabel("Comment (optional)").fill("Too broad: ask for one market.");
    await dialog.getByRole("button", { name: "Reject request" }).click();
    await provider.getByRole("status").getByText("Rejected: “Export every customer's orders”.").waitFor();
    await row.waitFor({ state: "detached" });
    expect((await t.api("GET", `/api/access/${id}`)).body.info.status).toBe("rejected");

    await provider.goto(`${t.url}/access/${id}`);
    const rejected = historyRow(provider, "Rejected");
    await rejected.waitFor();
    expect(await rejected.textContent()).toContain(`by you (${PEOPLE.provider})`);
    expect(await rejected.textContent()).toContain("Too broad: ask for one market.");
    expect(await provider.locator(".facts").textContent()).toContain("never");
  });

  it("lets the consumer withdraw a request after a confirmation", async () => {
    const id = await requestAccess("One-off backfill");
    const consumer = await newPage(PEOPLE.consumer);
    await consumer.goto(`${t.url}/access/${id}`);
    await consumer.getByRole("heading", { level: 1, name: "One-off backfill" }).waitFor();
    // Carol consumes, she does not provide: she may withdraw, not approve.
    expect(await consumer.getByRole("button", { name: "Approve" }).count()).toBe(0);
    await consumer.getByRole("button", { name: "Withdraw request" }).click();
    await consumer.getByRole("dialog").getByRole("button", { name: "Withdraw request" }).click();
    await consumer.getByRole("heading", { level: 1, name: "Access requests" }).waitFor();
    expect((await t.api("GET", `/api/access/${id}`)).status).toBe(404);
  });

  it("reaches every section through the menu on a 390 px wide phone", async () => {
    const phone = await newPage(PEOPLE.owner, { width: 390, height: 844 });
    const menu = phone.getByRole("button", { name: "Menu" });
    const nav = phone.getByRole("navigation", { name: "Main" });
    expect(await nav.isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    const settings = nav.getByRole("link", { name: "Settings" });
    await settings.waitFor({ state: "visible" });
    // Every link fits the screen: nothing hides off to the side.
    const box = await settings.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await settings.click();
    await phone.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    expect(await nav.isVisible()).toBe(false);
    const width = await phone.evaluate<number>("document.documentElement.scrollWidth");
    expect(width).toBeLessThanOrEqual(390);
  });

  it("keeps search and filters in the address, so a reload or a shared link shows the same list", async () => {
    const page = await newPage(PEOPLE.consumer);
    await page.getByLabel("Search", { exact: true }).fill("revenue");
    await page.getByLabel("Owner team").selectOption("analytics");
    await page.waitForURL(/\?q=revenue&teamId=analytics$/);
    await page.getByRole("link", { name: "Revenue dashboard" }).waitFor();
    // The unfiltered list shows "Revenue dashboard" too: wait for the filtered answer to replace it.
    await page.getByRole("link", { name: "Orders", exact: true }).waitFor({ state: "detached" });
    expect(await page.getByRole("link", { name: "Orders", exact: true }).count()).toBe(0);
    await page.reload();
    expect(await page.getByLabel("Search", { exact: true }).inputValue()).toBe("revenue");
    await expect.poll(() => page.getByLabel("Owner team").inputValue()).toBe("analytics");
    await page.getByRole("link", { name: "Revenue dashboard" }).waitFor();
    expect(await page.getByRole("link", { name: "Orders", exact: true }).count()).toBe(0);
  });

  it("filters data products by archetype, through the server's filter", async () => {
    const page = await newPage(PEOPLE.consumer);
    await page.getByLabel("Archetype").selectOption("source-aligned");
    await page.waitForURL(/\?archetype=source-aligned$/);
    await page.getByRole("link", { name: "Orders", exact: true }).waitFor();
    // Both are listed until the filtered answer arrives: wait for it to replace the list.
    await page.getByRole("link", { name: "Revenue dashboard" }).waitFor({ state: "detached" });
    expect(await page.getByRole("link", { name: "Revenue dashboard" }).count()).toBe(0);
    await page.getByLabel("Archetype").selectOption("aggregate");
    await page.getByText("No data product matches these filters.").waitFor();
  });
});
