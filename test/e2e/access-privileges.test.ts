import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/** The access page shows the privileges plan before approval, and the drift a connector reported. */

describe("privileges and drift on the access page", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
    const contract = {
      apiVersion: "v3.1.0",
      kind: "DataContract",
      id: "customers-v1",
      version: "1.0.0",
      status: "active",
      team: { name: "payments" },
      roles: [{ role: "analyst", customProperties: [{ property: "maxClassification", value: "internal" }, { property: "maskClassification", value: "confidential" }] }],
      schema: [
        {
          name: "customers",
          properties: [
            { name: "id", classification: "public" },
            { name: "email", classification: "confidential" },
            { name: "card_number", classification: "restricted" },
          ],
        },
      ],
    };
    expect((await t.api("PUT", "/api/datacontracts/customers-v1", contract)).status).toBe(200);
    const port = { id: "customers-pg", type: "postgres", dataContractId: "customers-v1", server: { host: "warehouse.internal", schema: "crm", table: "customers" } };
    expect((await t.api("PUT", "/api/dataproducts/customers", { info: { title: "Customers", owner: "payments" }, outputPorts: [port] })).status).toBe(200);
    const body = { info: { purpose: "Churn features" }, provider: { dataProductId: "customers", outputPortId: "customers-pg" }, consumer: { teamId: "analytics" }, roles: ["analyst"] };
    expect((await t.api("PUT", "/api/access/churn", body)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("shows each column's decision and reason before approval, then the drift a connector repaired", async () => {
    const page = await openPage(browser, contexts, t.url, PEOPLE.provider);
    await page.goto(`${t.url}/access/churn`);
    await page.getByRole("heading", { level: 2, name: "Privileges" }).waitFor();
    const columns = page.getByRole("table", { name: "Columns of warehouse.internal · crm.customers" });
    await columns.waitFor();
    const row = (name: string) => columns.getByRole("row").filter({ has: page.getByRole("cell", { name, exact: true }) });
    expect(await row("card_number").textContent()).toContain("withheld");
    expect(await row("email").textContent()).toContain("masked");
    expect(await row("email").textContent()).toContain("within the masked ceiling 'confidential'");
    expect(await row("id").textContent()).toContain("granted");

    const diagnostics = { message: "Reconciliation found drift and repaired it.", drift: [{ kind: "extra-privilege", what: "SELECT on column crm.customers.card_number for role steward_team_analytics, which no grant of the connector holds" }] };
    expect((await t.api("POST", "/api/access/churn/provisioning/provisioning-succeeded", { platform: "postgres", diagnostics })).status).toBe(200);
    await page.reload();
    const drift = page.getByRole("list", { name: "Drift found by reconciliation" });
    await drift.waitFor();
    expect(await drift.textContent()).toContain("extra-privilege");
    expect(await drift.textContent()).toContain("crm.customers.card_number");
    expect(await page.getByText("Reconciliation found drift and repaired it.").count()).toBe(1);
  });
});
