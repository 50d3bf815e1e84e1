import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/**
 * The approval inbox asks the server for the requests that wait (status=requested, per provider
 * team), so a request made after more than a page of other accesses still shows.
 */
describe("the approval inbox in a large organization", () => {
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

  it("shows the newest request even when more than a page of accesses came before it", async () => {
    // 1,001 accesses of the provider team to its own port are approved at once; none waits.
    const ids = Array.from({ length: 1001 }, (_, i) => `own-${i}`);
    for (let i = 0; i < ids.length; i += 50) {
      const answers = await Promise.all(
        ids.slice(i, i + 50).map((id) =>
          t.api("PUT", `/api/access/${id}`, {
            info: { purpose: `Own use ${id}` },
            provider: { dataProductId: "orders", outputPortId: "orders-postgres" },
            consumer: { teamId: "payments" },
          }),
        ),
      );
      for (const a of answers) expect(a.status, a.text).toBe(200);
    }
    const requested = await t.api("PUT", "/api/access/late-request", {
      info: { purpose: "Churn forecasting" },
      provider: { dataProductId: "orders", outputPortId: "orders-postgres" },
      consumer: { teamId: "analytics" },
    });
    expect(requested.body.info.status).toBe("requested");

    for (const email of [PEOPLE.provider, PEOPLE.owner]) {
      const page = await openPage(browser, contexts, t.url, email);
      await page.goto(`${t.url}/access`);
      await page.getByRole("button", { name: "Inbox (1)" }).waitFor();
      await page.getByRole("row", { name: /Churn forecasting/ }).waitFor();
    }
    // The consumer provides nothing: nothing waits for them.
    const consumer = await openPage(browser, contexts, t.url, PEOPLE.consumer);
    await consumer.goto(`${t.url}/access`);
    await consumer.getByRole("button", { name: "Inbox (0)" }).waitFor();
  }, 120_000);
});
