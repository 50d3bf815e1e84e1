import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

describe("notifications in a browser", () => {
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

  const requestAccess = async (id: string) => {
    const res = await t.api("PUT", `/api/access/${id}`, {
      info: { purpose: `Revenue reporting ${id}` },
      provider: { dataProductId: "orders", outputPortId: "orders-postgres" },
      consumer: { dataProductId: "revenue-dashboard" },
    });
    expect(res.status).toBe(200);
    await t.server.services.notificationEngine.pass();
  };

  it("shows the unread count in the header, lists the notifications, marks them read, and turns a kind off", async () => {
    await requestAccess("first");
    await requestAccess("second");
    const page = await openPage(browser, contexts, t.url, PEOPLE.provider);
    const bell = page.getByRole("link", { name: /^Notifications/ });
    await page.getByTestId("unread-count").getByText("2").waitFor();
    expect(await bell.getAttribute("aria-label")).toBe("Notifications, 2 unread");

    await bell.click();
    await page.getByRole("heading", { level: 1, name: "Notifications" }).waitFor();
    const items = page.getByRole("list", { name: "Notifications" }).getByRole("listitem");
    expect(await items.count()).toBe(2);
    // Newest first, naming the resource, who acted and a link to the access.
    await items.first().getByText("requested access 'second'", { exact: false }).waitFor();
    expect(await items.first().getByRole("link").getAttribute("href")).toBe("/access/second");

    await page.getByRole("button", { name: "Mark read: Access requested: orders" }).first().click();
    await page.getByTestId("unread-count").getByText("1").waitFor();
    await page.getByRole("button", { name: "Mark all read" }).click();
    await page.getByTestId("unread-count").waitFor({ state: "detached" });
    expect(await bell.getAttribute("aria-label")).toBe("Notifications");

    // Settings: turn "access requested" off; the next request tells this person nothing.
    const box = page.getByRole("checkbox", { name: "Access requested from my team" });
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").getByText("Saved.").waitFor();
    await requestAccess("third");
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Notifications" }).waitFor();
    expect(await page.getByRole("checkbox", { name: "Access requested from my team" }).isChecked()).toBe(false);
    expect(await page.getByRole("list", { name: "Notifications" }).getByRole("listitem").count()).toBe(2);
    expect(await page.getByTestId("unread-count").count()).toBe(0);
  });
});
