import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, request, startSeededServer } from "./fixtures.js";

/** An owner creates a key that acts as one person (`user`) or reads as them (`user_read`) on the API keys page. */
describe("person-scoped API keys in the web app", { timeout: 90_000 }, () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("creates a user and a user_read key for a member; a non-member is refused with the field named", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.owner);
    await page.goto(`${t.url}/settings/api-keys`);
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    for (const [label, scope] of [[/One person — acts/, "user"], [/One person, read only/, "user_read"]] as const) {
      await page.getByRole("button", { name: "Add API key" }).click();
      const dialog = page.getByRole("dialog");
      await dialog.getByLabel("Name").fill(`Carol's ${scope}`);
      await dialog.getByLabel(label).check();
      await dialog.getByLabel("Person", { exact: true }).fill("nobody@example.com");
      await dialog.getByRole("button", { name: "Create key" }).click();
      await dialog.getByText("The key was not created").waitFor();
      expect(await dialog.textContent()).toContain("userId");
      await dialog.getByLabel("Person", { exact: true }).fill(PEOPLE.consumer);
      await dialog.getByRole("button", { name: "Create key" }).click();
      await dialog.getByText("you will not see it again").waitFor();
      const secret = await dialog.getByLabel(/Secret of/).inputValue();
      const created = await request(t.url, "GET", "/api/dataproducts", undefined, { key: secret });
      expect(created.status).toBe(200);
      await dialog.getByRole("button", { name: "I have stored the key" }).click();
      const row = page.getByRole("row", { name: new RegExp(`Carol's ${scope}`) });
      await row.waitFor();
      expect(await row.textContent()).toContain(scope);
    }
  });
});
