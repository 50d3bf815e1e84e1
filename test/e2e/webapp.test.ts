import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { DBT_INVALID, launchBrowser, openPage, PEOPLE, request, startSeededServer } from "./fixtures.js";

const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });

describe("web app in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const newPage = (email: string): Promise<Page> => openPage(browser, contexts, t.url, email);

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("signs in, and sends people who are not signed in to the sign-in page", async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${t.url}/dataproducts/orders`);
    await page.waitForURL(/\/sign-in\?next=%2Fdataproducts%2Forders$/);
    await page.getByLabel("Email address").fill(PEOPLE.owner);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("not correct");
    await page.getByLabel("Password").fill("steward-demo-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    // Back where they wanted to go: the page a location-html header names.
    await page.getByRole("heading", { level: 1, name: "Orders" }).waitFor();
    await page.getByRole("heading", { name: "Orders (PostgreSQL)" }).waitFor();
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === "steward_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  });

  it("creates a team key whose secret is shown once and works, then revokes it", async () => {
    const page = await newPage(PEOPLE.owner);
    await nav(page, "Settings").click();
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    await page.getByRole("button", { name: "Add API key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Name").fill("Orders pipeline");
    await dialog.getByLabel(/One team/).check();
    await dialog.getByLabel("Team", { exact: true }).selectOption("payments");
    await dialog.getByRole("button", { name: "Create key" }).click();

    await dialog.getByText("you will not see it again").waitFor();
    const secret = await dialog.getByLabel(/Secret of/).inputValue();
    expect(secret).toMatch(/^stw_[A-Za-z0-9_-]{43}$/);
    await dialog.getByRole("button", { name: "Copy" }).waitFor();

    // The secret works against /api, with the team's rights.
    expect((await request(t.url, "GET", "/api/dataproducts", undefined, { key: secret })).status).toBe(200);
    expect((await request(t.url, "PUT", "/api/teams/payments", { name: "Payments", description: "Checkout, orders and refunds.", members: [{ emailAddress: PEOPLE.provider, role: "data product owner" }] }, { key: secret })).status).toBe(200);
    expect((await request(t.url, "PUT", "/api/teams/analytics", { name: "Taken over" }, { key: secret })).status).toBe(403);

    // Once the dialog is closed and the page left, the secret is nowhere to be found again.
    await dialog.getByRole("button", { name: "I have stored the key" }).click();
    await nav(page, "Data products").click();
    await page.getByRole("heading", { level: 1, name: "Data products" }).waitFor();
    await page.goBack();
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    const row = page.getByRole("row", { name: /Orders pipeline/ });
    await row.waitFor();
    expect(await row.textContent()).toContain("team");
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(secret);
    const listed = await page.evaluate(async () => (await fetch("/api/api-keys")).text());
    expect(listed).toContain("Orders pipeline");
    expect(listed).not.toContain(secret);
    expect(listed).not.toContain(secret.slice(4, 20));

    // Revoke, with confirmation; the very next request with the key is refused.
    await row.getByRole("button", { name: /Revoke/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    // The key leaves the keys in force and stays listed among the revoked ones, with who revoked it and when.
    await page.getByRole("table", { name: "API keys of the organization" }).getByRole("row", { name: /Orders pipeline/ }).waitFor({ state: "detached" });
    const revokedRow = page.getByRole("table", { name: "Revoked API keys" }).getByRole("row", { name: /Orders pipeline/ });
    await revokedRow.waitFor();
    expect(await revokedRow.textContent()).toContain(`you (${PEOPLE.owner})`);
    expect(await revokedRow.getByRole("button", { name: /Revoke/ }).count()).toBe(0);
    expect((await request(t.url, "GET", "/api/dataproducts", undefined, { key: secret })).status).toBe(401);
  });

  it("requests access, approves it in the provider's inbox, and shows Requested, Approved, Activated live", async () => {
    const owner = await newPage(PEOPLE.owner);
    await nav(owner, "Activity").click();
    await owner.getByRole("heading", { level: 1, name: "Activity" }).waitFor();

    // Carol (Analytics) asks for the Orders port.
    const consumer = await newPage(PEOPLE.consumer);
    await consumer.getByRole("link", { name: "Orders", exact: true }).click();
    await consumer.getByRole("button", { name: "Request access to Orders (PostgreSQL)" }).click();
    const dialog = consumer.getByRole("dialog");
    await dialog.getByLabel("Consumer team").selectOption("analytics");
    await dialog.getByLabel("Purpose").fill("Daily revenue reporting by market");
    await dialog.getByRole("button", { name: "Send request" }).click();
    await consumer.getByRole("heading", { level: 1, name: "Daily revenue reporting by market" }).waitFor();
    const accessId = decodeURIComponent(new URL(consumer.url()).pathname.split("/").pop()!);
    await consumer.getByText("Waiting for approval").waitFor();
    // Carol is not the provider: no approve button for her.
    expect(await consumer.getByRole("button", { name: "Approve" }).count()).toBe(0);

    // Paul (Payments) approves in his inbox.
    const provider = await newPage(PEOPLE.provider);
    await nav(provider, "Access").click();
    await provider.getByRole("button", { name: /Inbox \(1\)/ }).waitFor();
    const row = provider.getByRole("row", { name: /Daily revenue reporting by market/ });
    expect(await row.textContent()).toContain("requested");
    await row.getByRole("button", { name: /Approve/ }).click();
    await provider.getByRole("dialog").getByRole("button", { name: "Approve" }).click();
    await provider.getByRole("status").getByText("Approved: “Daily revenue reporting by market”. It is active.").waitFor();
    await provider.getByText("Nothing waits for your decision.").waitFor();
    await provider.getByRole("button", { name: "All requests" }).click();
    await provider.getByRole("row", { name: /Daily revenue reporting by market/ }).getByText("active", { exact: true }).waitFor();

    // The owner's activity view, open all along, picks the events up without a reload.
    const events = owner.locator(`.timeline li:has(a[href="/access/${encodeURIComponent(accessId)}"])`);
    for (const kind of ["Requested", "Approved", "Activated"]) {
      await events.filter({ hasText: kind }).first().waitFor({ timeout: 10_000 });
    }
    const order = await events.evaluateAll((items) => items.map((li) => li.getAttribute("data-event-kind")));
    expect(order.slice(0, 4)).toEqual(["AccessActivatedEvent", "AccessApprovedEvent", "AccessRequestedEvent", "AccessCreatedEvent"]);

    // The access page shows the lifecycle state and dates.
    await consumer.reload();
    await consumer.getByRole("list", { name: "Lifecycle" }).getByText("Approved").waitFor();
    await consumer.getByText("Active since").waitFor();
  });

  it("shows a contract's models, and the violations of an invalid schema against its lines", async () => {
    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/datacontracts/orders-v1`);
    await page.getByRole("heading", { level: 3, name: "orders", exact: true }).waitFor();
    const field = page.getByRole("row", { name: /customer_id/ }).first();
    expect(await field.textContent()).toMatch(/string.*required.*relationships/s);

    await nav(page, "Data contracts").click();
    await page.getByRole("link", { name: "New data contract" }).click();
    await page.getByLabel("Id", { exact: true }).fill("shipments-v1");
    await page.getByLabel("Title").fill("Shipments");
    await page.getByLabel("Schema specification").fill(DBT_INVALID);
    await page.getByRole("button", { name: "Create data contract" }).click();
    await page.getByRole("alert").getByText(/Not saved: \d+ values to fix/).waitFor();
    // Each problem is listed with the line of the schema it is about, and that line is marked.
    const problems = page.getByRole("region", { name: "Problems in the document" });
    const text = await problems.textContent();
    expect(text).toMatch(/Line 8.*specification\.models\[0\]\.columns\[1\]\.name: A column needs a name\./s);
    expect(text).toMatch(/Line 10.*specification\.models\[1\]\.name: A model needs a name\./s);
    expect(await page.locator(".gutter span.flagged").first().textContent()).toBe("8");
    await problems.getByRole("button", { name: /^Line 8/ }).click();
    const selected = await page.getByLabel("Schema specification").evaluate((el) => {
      const area = el as unknown as { value: string; selectionStart: number; selectionEnd: number };
      return area.value.slice(area.selectionStart, area.selectionEnd);
    });
    expect(selected).toContain("data_type: timestamp");
    expect((await t.api("GET", "/api/datacontracts/shipments-v1")).status).toBe(404);
  });

  it("shows every API key and member, past the first page of their lists", async () => {
    // One more of each than a page of the API holds (1000): the last only shows when the web app reads on.
    await t.server.services.database.db.transaction().execute(async (trx) => {
      for (let i = 1; i <= 1000; i++) {
        await t.server.services.apiKeys.createKey(trx, t.organizationId, { displayName: `Bulk key ${i}`, scope: "organization", teamId: null, expiresAt: null });
      }
      for (let i = 1; i <= 1000; i++) await t.server.services.people.invitations.invite(trx, t.organizationId, `zz-invited-${String(i).padStart(4, "0")}@example.com`, "member");
    });
    const page = await newPage(PEOPLE.owner);
    await page.goto(`${t.url}/settings/api-keys`);
    await page.getByRole("row", { name: /Bulk key 1000\b/ }).waitFor({ timeout: 30_000 });
    await page.goto(`${t.url}/settings/members`);
    // Two pages of a thousand and as many rows to draw: 5 s on a quiet machine, past the 10 s default on a busy one.
    await page.getByRole("cell", { name: "zz-invited-1000@example.com", exact: true }).waitFor({ timeout: 30_000 });
  }, 90_000);
});
