import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/** "New" never overwrites, two people editing at once never silently lose a save, and ODCS contracts edited as YAML. */

const ODCS = (name: string, description = "Shipments handed to carriers.") =>
  [
    "apiVersion: v3.1.0",
    "kind: DataContract",
    "id: shipments-odcs",
    `name: ${name}`,
    "version: 1.0.0",
    "status: draft",
    "team:",
    "  name: logistics",
    "description:",
    `  purpose: ${description}`,
    "schema:",
    "  - name: shipments",
    "    logicalType: object",
    "    properties:",
    "      - name: shipment_id",
    "        logicalType: string",
    "        required: true",
    "",
  ].join("\n");

describe("safe writes in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const newPage = (email: string): Promise<Page> => openPage(browser, contexts, t.url, email);
  const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true }).waitFor();

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
    await t.api("PUT", "/api/teams/logistics", { name: "Logistics", type: "Team", members: [{ emailAddress: PEOPLE.consumer, role: "analyst" }] });
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("refuses a new contract or team whose id exists, says so, and offers to open it", async () => {
    const before = (await t.api("GET", "/api/datacontracts/orders-v1")).body;
    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/datacontracts/new`);
    await heading(page, "New data contract");
    await page.getByLabel("Id", { exact: true }).fill("orders-v1");
    await page.getByLabel("Title").fill("Someone else's orders");
    await page.getByRole("button", { name: "Create data contract" }).click();
    const error = page.locator("#doc-id-error");
    await error.getByText("A data contract with the id “orders-v1” already exists").waitFor();
    expect(await error.textContent()).toContain("Nothing was overwritten.");
    expect((await t.api("GET", "/api/datacontracts/orders-v1")).body).toEqual(before);
    // Leaving drops what was typed: the page asks first.
    page.once("dialog", (d) => void d.accept());
    await error.getByRole("link", { name: "open it?" }).click();
    await heading(page, "Orders");

    const team = (await t.api("GET", "/api/teams/payments")).body;
    const owner = await newPage(PEOPLE.owner);
    await owner.goto(`${t.url}/teams/new`);
    await owner.getByLabel("Id", { exact: true }).fill("payments");
    await owner.getByLabel("Name", { exact: true }).fill("Sales");
    await owner.getByRole("button", { name: "Create team" }).click();
    await owner.locator("#doc-id-error").getByText("A team with the id “payments” already exists").waitFor();
    expect((await t.api("GET", "/api/teams/payments")).body).toEqual(team);
  });

  it("shows a conflict when someone else saved first, and lets the person compare, reload or overwrite", async () => {
    const first = await newPage(PEOPLE.provider);
    const second = await newPage(PEOPLE.owner);
    for (const page of [first, second]) {
      await page.goto(`${t.url}/dataproducts/orders/edit`);
      await heading(page, "Edit Orders");
    }
    await first.getByLabel("Title").fill("Orders (first)");
    await first.getByRole("button", { name: "Save changes" }).click();
    await heading(first, "Orders (first)");

    await second.getByLabel("Description").fill("Changed by the second person.");
    await second.getByRole("button", { name: "Save changes" }).click();
    const conflict = second.getByRole("alert").filter({ hasText: "Someone else saved this data product after you opened it" });
    await conflict.waitFor();
    // The comparison shows their title against the one in this editor.
    const diff = await conflict.locator(".diff").textContent();
    expect(diff).toContain("title: Orders (first)");
    expect(diff).toContain("description: Changed by the second person.");
    expect((await t.api("GET", "/api/dataproducts/orders")).body.info).toMatchObject({ title: "Orders (first)", description: "Orders placed in the web shop." });

    await conflict.getByRole("button", { name: "Reload their version" }).click();
    await conflict.waitFor({ state: "detached" });
    expect(await second.getByLabel("Title").inputValue()).toBe("Orders (first)");
    await second.getByLabel("Description").fill("Changed after reading theirs.");
    await second.getByRole("button", { name: "Save changes" }).click();
    await heading(second, "Orders (first)");
    expect((await t.api("GET", "/api/dataproducts/orders")).body.info).toMatchObject({ title: "Orders (first)", description: "Changed after reading theirs." });
  });

  it("creates, edits and deletes an ODCS contract as YAML", async () => {
    const page = await newPage(PEOPLE.consumer);
    await page.goto(`${t.url}/datacontracts/new`);
    await heading(page, "New data contract");
    await page.getByRole("button", { name: "YAML / JSON" }).click();
    await page.getByLabel("Document", { exact: true }).fill(ODCS("Shipments"));
    await page.getByRole("button", { name: "Create data contract" }).click();
    await heading(page, "Shipments");
    expect(new URL(page.url()).pathname).toBe("/datacontracts/shipments-odcs");
    await page.getByRole("heading", { level: 3, name: "shipments" }).waitFor();

    await page.getByRole("link", { name: "Edit", exact: true }).click();
    await heading(page, "Edit Shipments");
    // No form for ODCS: the editor opens on the document.
    const doc = page.getByLabel("Document", { exact: true });
    expect(await doc.inputValue()).toContain("apiVersion: v3.1.0");
    // A member the standard does not allow is a problem at its line.
    await doc.fill(ODCS("Shipments").replace("status: draft", "status: draft\nowner: logistics"));
    await page.getByRole("button", { name: "Save changes" }).click();
    const problems = page.getByRole("region", { name: "Problems in the document" });
    await problems.waitFor();
    expect(await problems.textContent()).toMatch(/Line 7.*owner/);
    await doc.fill(ODCS("Shipments to carriers"));
    await page.getByRole("button", { name: "Save changes" }).click();
    await heading(page, "Shipments to carriers");

    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete data contract" }).click();
    await heading(page, "Data contracts");
    expect((await t.api("GET", "/api/datacontracts/shipments-odcs")).status).toBe(404);
  });
});
