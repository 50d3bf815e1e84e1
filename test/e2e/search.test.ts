import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

describe("the search box in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("answers / the moment the box is on the page, before the browser has painted", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.consumer);
    // As soon as the box enters the page (once the render that made it is done, before any
    // paint), press / and note where focus went. A listener added only after the next frame
    // misses this press, as it missed a quick person's on a busy machine.
    await page.addInitScript({
      content: `
        window.slash = "box never appeared";
        new MutationObserver((changes, observer) => {
          const box = document.querySelector('input[aria-label="Search the catalog"]');
          if (box === null) return;
          observer.disconnect();
          document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "/", bubbles: true, cancelable: true }));
          window.slash = document.activeElement === box ? "focused" : "missed";
        }).observe(document, { childList: true, subtree: true });`,
    });
    await page.goto(`${t.url}/teams`);
    await page.getByRole("heading", { level: 1, name: "Teams" }).waitFor();
    expect(await page.evaluate("window.slash")).toBe("focused");
  });

  it("is focused by /, groups results by kind, and opens one with the keyboard", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.consumer);
    await page.goto(`${t.url}/teams`);
    await page.getByRole("heading", { level: 1, name: "Teams" }).waitFor();
    await page.keyboard.press("/");
    const box = page.getByRole("combobox", { name: "Search the catalog" });
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe("Search the catalog");
    await box.waitFor();
    await page.keyboard.type("order");
    const list = page.getByRole("listbox", { name: "Search results" });
    await list.getByRole("group", { name: "Data products" }).getByRole("option", { name: /Orders/ }).waitFor();
    await list.getByRole("group", { name: "Data contracts" }).getByRole("option", { name: /Orders/ }).waitFor();
    // The first option is the data product; one step down is the contract.
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.waitForURL(`${t.url}/datacontracts/orders-v1`);
    await page.getByRole("heading", { level: 1, name: "Orders" }).waitFor();

    // A column of the contract's dbt model finds it too; nothing found says so.
    await page.keyboard.press("/");
    await page.keyboard.type("zzz-nothing");
    await page.getByText("Nothing found for “zzz-nothing”.").waitFor();
    // Focus that leaves the box and comes straight back keeps the list open: the close that
    // follows a blur by a moment (so a click on a result lands) is called off by the focus.
    await box.evaluate((input) => {
      const element = input as unknown as { blur(): void; focus(): void };
      element.blur();
      element.focus();
    });
    await page.waitForTimeout(400);
    expect(await page.getByText("Nothing found for “zzz-nothing”.").isVisible()).toBe(true);
    await page.keyboard.press("Escape");
    expect(await list.count()).toBe(0);
  });
});
