import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { eventually, Receivers } from "../notifications/peers.js";
import { ensureWebBuilt, launchBrowser, openPage, PEOPLE, seed } from "./fixtures.js";

/**
 * A team's notification channels in a browser (docs/notifications.md): a member of the team adds
 * a signed webhook and sees its secret once, a real receiver on loopback gets the delivery, and the
 * channel's delivery log shows it and redelivers it; someone of another team sees no channels.
 */
describe("notification channels in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const receivers = new Receivers();
  let base: string;

  beforeAll(async () => {
    await ensureWebBuilt();
    base = await receivers.start();
    [t, browser] = await Promise.all([
      startTestServer("sqlite", { outbound: { allowPrivateNetworks: true, allowedHosts: [] }, notify: { pollMs: 50, retryBaseMs: 200, timeoutMs: 2000, leaseMs: 5000 } }),
      launchBrowser(),
    ]);
    await seed(t);
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
    await receivers.close();
  });

  it("adds a signed webhook showing its secret once; the receiver gets the delivery, and the log shows and redelivers it", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.provider);
    await page.goto(`${t.url}/teams/payments`);
    await page.getByRole("heading", { level: 2, name: "Notification channels" }).waitFor();
    await page.getByText("No channels yet.").waitFor();

    await page.getByRole("button", { name: "Add channel" }).click();
    const dialog = page.getByRole("dialog", { name: "New notification channel" });
    await dialog.getByLabel("Id").fill("receiver");
    await dialog.getByLabel("Name").fill("Our receiver");
    await dialog.getByLabel("Type").selectOption("webhook");
    await dialog.getByLabel("Endpoint").fill(`${base}/hook/payments`);
    await dialog.getByRole("button", { name: "Add channel" }).click();
    const secret = await page.getByTestId("channel-secret").inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    receivers.secrets.set("/hook/payments", secret);
    await page.getByRole("button", { name: "Done" }).click();
    const row = page.getByRole("table", { name: "Notification channels" }).getByRole("row", { name: /Our receiver/ });
    await row.getByText("Signed webhook (the CloudEvent)").waitFor();
    // Shown once: editing the channel never shows the secret again, nor does the page.
    await row.getByRole("button", { name: "Edit Our receiver" }).click();
    await page.getByRole("dialog", { name: "Edit channel “Our receiver”" }).getByRole("button", { name: "Save channel" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" }).catch(() => undefined);
    expect(await page.getByTestId("channel-secret").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // Something the team hears of: analytics asks for the orders.
    const access = await t.api("PUT", "/api/access/dashboard-orders", {
      info: { purpose: "Revenue reporting" },
      provider: { dataProductId: "orders", outputPortId: "orders-postgres" },
      consumer: { dataProductId: "revenue-dashboard" },
    });
    expect(access.status, access.text).toBe(200);
    await eventually(() => receivers.at("/hook/payments").length === 1, 15_000, "the webhook delivery");
    const delivered = receivers.at("/hook/payments")[0];
    expect(delivered.signatureValid).toBe(true);
    expect(JSON.parse(delivered.body)).toMatchObject({ type: "com.service.events.AccessRequestedEvent", subject: "dashboard-orders" });

    await row.getByRole("button", { name: "Delivery log of Our receiver" }).click();
    const log = page.getByRole("table", { name: "Delivery log of receiver" });
    await eventually(async () => {
      await page.getByRole("button", { name: "Refresh log" }).click();
      return (await log.getByText("delivered").count()) === 1;
    }, 15_000, "the delivery in the log");
    const entry = log.getByRole("row", { name: /Access requested from my team/ });
    expect(await entry.getByRole("cell").nth(2).textContent()).toBe("1");
    expect(await entry.getByRole("cell").nth(3).textContent()).toBe("204");

    await entry.getByRole("button", { name: /^Redeliver/ }).click();
    await page.getByRole("status").getByText("Queued again: Access requested from my team.").waitFor();
    await eventually(() => receivers.at("/hook/payments").length === 2, 15_000, "the redelivery");
    const [first, again] = receivers.at("/hook/payments");
    expect(again.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(again.signatureValid).toBe(true);
  });

  it("shows another team's page without its channels", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.consumer);
    await page.goto(`${t.url}/teams/payments`);
    await page.getByRole("heading", { level: 2, name: "Members" }).waitFor();
    expect(await page.getByRole("heading", { name: "Notification channels" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Add channel" }).count()).toBe(0);
  });
});
