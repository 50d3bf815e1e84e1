import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, PEOPLE, signIn, startSeededServer } from "./fixtures.js";

describe("sign-in and provisioning settings in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it("lets an owner save the group mapping and team roles, and explains why passwords stay on", async () => {
    await signIn(page, t.url, PEOPLE.owner);
    await page.goto(`${t.url}/settings/identity`);
    await page.getByRole("heading", { level: 1, name: "Sign-in and provisioning" }).waitFor();
    await page.getByText(`${t.url}/api/scim/v2`).waitFor();

    const mapping = { scimGroupMappings: [{ scimGroup: "admins", type: "organizationOwner" }] };
    await page.getByRole("textbox", { name: "Group mapping" }).fill(JSON.stringify(mapping));
    await page.getByRole("button", { name: "Save group mapping" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).first().waitFor();
    expect((await t.api("GET", "/api/settings/scim-mapping")).body).toEqual(mapping);

    await page.getByRole("textbox", { name: "Team roles" }).fill(JSON.stringify({ mode: "custom-team-roles", "team-roles": [] }));
    await page.getByRole("button", { name: "Save team roles" }).click();
    await page.getByText("A custom catalog needs at least one role").waitFor();

    await page.getByRole("button", { name: "Turn password sign-in off" }).click();
    await page.getByText("no single sign-on provider").waitFor();
    expect((await t.api("GET", "/api/settings/sign-in")).body.passwordSignIn).toBe(true);
  });
});
