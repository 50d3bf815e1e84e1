import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, PASSWORD, PEOPLE, request, signIn, startSeededServer } from "./fixtures.js";

describe("invitations in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    return page;
  };

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("invites a new person, who chooses a password and joins; the owner sees them active", async () => {
    const owner = await newPage();
    await signIn(owner, t.url, PEOPLE.owner);
    await owner.goto(`${t.url}/settings/members`);
    await owner.getByRole("heading", { level: 1, name: "Members" }).waitFor();
    await owner.getByLabel("Email address").fill("nina@example.com");
    await owner.getByRole("button", { name: "Invite" }).click();
    const link = await owner.getByLabel("Invitation link for nina@example.com").inputValue();
    expect(link).toMatch(/\/invitation\?token=/);
    await owner.getByRole("row", { name: /nina@example\.com/ }).getByText("invited").waitFor();

    const nina = await newPage();
    await nina.goto(link.replace("http://steward.test", t.url));
    await nina.getByText("You are invited to join").waitFor();
    expect(await nina.getByLabel("Email address").inputValue()).toBe("nina@example.com");
    await nina.getByLabel("New password").fill("nina's own password");
    await nina.getByLabel("Repeat the password").fill("nina's own password");
    await nina.getByRole("button", { name: "Create account and join" }).click();
    await nina.getByRole("heading", { level: 1, name: "Data products" }).waitFor();

    await owner.reload();
    await owner.getByRole("row", { name: /nina@example\.com/ }).getByText("active").waitFor();
  });

  it("has an existing account sign in to accept, and refuses it to another account", async () => {
    const other = await t.createOrganization("second");
    const invited = await request(t.url, "PUT", `/api/members/${encodeURIComponent(PEOPLE.provider)}`, { role: "member" }, { key: other.key });
    const link = (invited.body.invitationUrl as string).replace("http://steward.test", t.url);

    // Signed in as someone else: told so, and not joined.
    const wrong = await newPage();
    await signIn(wrong, t.url, PEOPLE.consumer);
    await wrong.goto(link);
    await wrong.getByText(`but you are signed in as ${PEOPLE.consumer}`).waitFor();

    const paul = await newPage();
    await paul.goto(link);
    await paul.getByRole("link", { name: "Sign in to accept" }).click();
    await paul.getByLabel("Email address").fill(PEOPLE.provider);
    await paul.getByLabel("Password").fill(PASSWORD);
    await paul.getByRole("button", { name: "Sign in" }).click();
    await paul.getByRole("button", { name: "Accept invitation" }).click();
    await paul.getByRole("heading", { level: 1, name: "Data products" }).waitFor();
    expect(await paul.getByLabel("Organization").inputValue()).toBe(other.organizationId);
  });
});
