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
    await page.getByRole("button", { name: "Add owner group" }).click();
    await page.getByRole("group", { name: "Mapping 1", exact: true }).getByLabel("Group", { exact: true }).fill("admins");
    await page.getByRole("button", { name: "Save group mapping" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).first().waitFor();
    expect((await t.api("GET", "/api/settings/scim-mapping")).body).toEqual(mapping);

    await page.getByLabel(/Our own roles/).check();
    await page.getByRole("button", { name: "Remove role 2" }).click();
    await page.getByRole("button", { name: "Remove role 1" }).click();
    await page.getByRole("button", { name: "Save team roles" }).click();
    await page.getByText("A custom catalog needs at least one role").waitFor();
    await page.getByLabel(/Built-in roles/).check();

    await page.getByRole("button", { name: "Turn password sign-in off" }).click();
    await page.getByText("no single sign-on provider").waitFor();
    expect((await t.api("GET", "/api/settings/sign-in")).body.passwordSignIn).toBe(true);
  });

  it("lets an owner add a team role with two permissions and a team group that gives it, kept after a reload", async () => {
    await page.goto(`${t.url}/settings/identity`);
    await page.getByRole("heading", { level: 2, name: "Team roles" }).waitFor();

    await page.getByLabel(/Our own roles/).check();
    // The catalog starts as the built-in roles; a third role is added beside them.
    await page.getByRole("button", { name: "Add role" }).click();
    const role = page.getByRole("group", { name: "Role 3", exact: true });
    await role.getByLabel("Name", { exact: true }).fill("owner");
    await role.getByLabel("ACCESS_APPROVE", { exact: true }).check();
    await role.getByLabel("RESOURCES_EDIT", { exact: true }).check();
    await page.getByRole("button", { name: "Save team roles" }).click();
    // The server's problem stands beside the field it names.
    await role.locator(".field-error").filter({ hasText: "duplicates the role" }).waitFor();
    await role.getByLabel("Name", { exact: true }).fill("Approver");
    await role.getByLabel("Description", { exact: true }).fill("Approves access to the team's products.");
    await page.getByRole("button", { name: "Save team roles" }).click();
    await page.getByRole("form", { name: "Team roles" }).getByRole("status").filter({ hasText: "Saved." }).waitFor();

    await page.getByRole("button", { name: "Add team group" }).click();
    const row = page.getByRole("group", { name: "Mapping 2", exact: true });
    await row.getByLabel("Group", { exact: true }).fill("data-approvers");
    await row.getByLabel("Team", { exact: true }).selectOption({ label: "Analytics" });
    await row.getByLabel("Team role", { exact: true }).selectOption("Approver");
    await page.getByRole("button", { name: "Save group mapping" }).click();
    await page.getByRole("form", { name: "Group mapping" }).getByRole("status").filter({ hasText: "Saved." }).waitFor();

    await page.reload();
    const kept = page.getByRole("group", { name: "Mapping 2", exact: true });
    expect(await kept.getByLabel("Group", { exact: true }).inputValue()).toBe("data-approvers");
    expect(await kept.getByLabel("Team", { exact: true }).inputValue()).toBe("analytics");
    expect(await kept.getByLabel("Team role", { exact: true }).inputValue()).toBe("Approver");
    const keptRole = page.getByRole("group", { name: "Role 3", exact: true });
    expect(await keptRole.getByLabel("Name", { exact: true }).inputValue()).toBe("Approver");
    expect(await keptRole.getByLabel("ACCESS_APPROVE", { exact: true }).isChecked()).toBe(true);
    expect(await keptRole.getByLabel("RESOURCES_EDIT", { exact: true }).isChecked()).toBe(true);
    expect(await keptRole.getByLabel("ACCESS_EDIT", { exact: true }).isChecked()).toBe(false);

    expect((await t.api("GET", "/api/settings/scim-mapping")).body).toEqual({
      scimGroupMappings: [
        { scimGroup: "admins", type: "organizationOwner" },
        { scimGroup: "data-approvers", type: "teamMemberRole", teamId: "analytics", teamMemberRole: "Approver" },
      ],
    });
    const roles = (await t.api("GET", "/api/settings/team-roles")).body;
    expect(roles.mode).toBe("custom-team-roles");
    expect(roles["team-roles"].map((r: { name: string }) => r.name)).toEqual(["owner", "member", "Approver"]);
    expect(roles["team-roles"][2]).toMatchObject({ description: "Approves access to the team's products.", permissions: ["RESOURCES_EDIT", "ACCESS_APPROVE"] });
  });
});
