/**
 * Takes the README's screenshots of the main pages (`npm run screenshots`): a seeded Steward on a
 * temporary SQLite database, driven by headless Chromium, written to docs/screenshots/*.png.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { ROOT } from "../helpers/cli.js";
import { DBT_INVALID, launchBrowser, PEOPLE, signIn, startSeededServer } from "./fixtures.js";

const OUT = join(ROOT, "docs/screenshots");

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const t = await startSeededServer();
  let browser: Browser | undefined;
  try {
    await t.server.services.database.db.updateTable("organizations").set({ name: "Acme Retail" }).where("id", "=", t.organizationId).execute();
    // Some history for the inbox and the activity view.
    const request = async (purpose: string, consumer: Record<string, string>) => {
      const res = await t.api("POST", "/api/access", { info: { purpose }, provider: { dataProductId: "orders", outputPortId: "orders-postgres" }, consumer });
      if (res.status !== 201) throw new Error(res.text);
      return res.body.id as string;
    };
    const approved = await request("Revenue dashboard: daily revenue by market", { dataProductId: "revenue-dashboard" });
    await t.api("POST", `/api/access/${approved}/approve`, { comment: "Approved for the dashboard; no row-level exports." });
    await t.api("POST", `/api/access/${approved}/provisioning/provisioning-succeeded`, { platform: "postgres", executor: "steward-postgres-connector", reference: "GRANT SELECT ON orders.* TO analytics_reader" });
    await request("Forecast next quarter's order volume", { teamId: "analytics" });
    await request("Parcel sizes per order for carrier contracts", { teamId: "logistics" });
    const rejected = await request("Marketing e-mail targeting", { teamId: "analytics" });
    await t.api("POST", `/api/access/${rejected}/reject`);

    browser = await launchBrowser();
    const open = async (email: string, width = 1280, height = 800): Promise<Page> => {
      const context = await browser!.newContext({ viewport: { width, height }, deviceScaleFactor: 1, colorScheme: "light", locale: "en-GB", timezoneId: "UTC" });
      const page = await context.newPage();
      await signIn(page, t.url, email);
      return page;
    };
    const shot = async (page: Page, name: string, fullPage = true) => {
      await page.evaluate("window.scrollTo(0, 0)");
      await page.waitForTimeout(150);
      await page.screenshot({ path: join(OUT, `${name}.png`), fullPage });
      process.stdout.write(`docs/screenshots/${name}.png\n`);
    };

    const owner = await open(PEOPLE.owner);
    await shot(owner, "dataproducts");
    await owner.goto(`${t.url}/dataproducts/orders`);
    await owner.getByRole("heading", { name: "Orders (PostgreSQL)" }).waitFor();
    await shot(owner, "dataproduct");
    await owner.goto(`${t.url}/datacontracts/orders-v1`);
    await owner.getByRole("heading", { level: 3, name: "order_lines" }).waitFor();
    await shot(owner, "datacontract");
    // A full ODCS contract, titled by its data product and business name: desktop and phone width.
    await t.api("PUT", "/api/teams/finance", { name: "Finance" });
    const payments = readFileSync(join(ROOT, "test/fixtures/contracts/odcs-payments.yaml"), "utf8");
    const stored = await t.api("PUT", "/api/datacontracts/payments-contract", undefined, { raw: payments, contentType: "application/yaml" });
    if (stored.status !== 200) throw new Error(stored.text);
    await owner.goto(`${t.url}/datacontracts/payments-contract`);
    await owner.getByRole("table", { name: "Fields of payments" }).waitFor();
    await shot(owner, "datacontract-odcs");
    // A second version with a shorter retention and a new support channel: the changes and the whole document side by side.
    const next = payments.replace("property: retention\n    value: 3", "property: retention\n    value: 1").replace("version: 1.0.0", "version: 1.1.0").replace("price:", "  - channel: payments-tickets\n    tool: ticket\n    url: https://tickets.example.com/payments\nprice:");
    const updated = await t.api("PUT", "/api/datacontracts/payments-contract", undefined, { raw: next, contentType: "application/yaml" });
    if (updated.status !== 200) throw new Error(updated.text);
    await owner.goto(`${t.url}/datacontracts/payments-contract`);
    await owner.getByRole("button", { name: "Show changes" }).click();
    await owner.getByRole("table", { name: /side by side/ }).waitFor();
    await owner.getByRole("heading", { name: /Changes from #1 to #2/ }).scrollIntoViewIfNeeded();
    await owner.waitForTimeout(150);
    await owner.screenshot({ path: join(OUT, "datacontract-changes.png"), fullPage: false });
    process.stdout.write("docs/screenshots/datacontract-changes.png\n");
    const phoneContract = await open(PEOPLE.owner, 390, 844);
    await phoneContract.goto(`${t.url}/datacontracts/payments-contract`);
    await phoneContract.getByRole("table", { name: "Fields of payments" }).waitFor();
    await shot(phoneContract, "datacontract-phone");
    await phoneContract.context().close();
    await owner.goto(`${t.url}/datacontracts/new`);
    await owner.getByLabel("Id", { exact: true }).fill("shipments-v1");
    await owner.getByLabel("Title").fill("Shipments");
    await owner.getByLabel("Schema specification").fill(DBT_INVALID);
    await owner.getByRole("button", { name: "Create data contract" }).click();
    await owner.getByRole("region", { name: "Problems in the document" }).waitFor();
    await shot(owner, "datacontract-violations");

    await owner.goto(`${t.url}/dataproducts/orders/edit`);
    await owner.getByRole("heading", { level: 1, name: "Edit Orders" }).waitFor();
    await shot(owner, "dataproduct-edit");

    await owner.goto(`${t.url}/settings/api-keys`);
    await owner.getByRole("button", { name: "Add API key" }).click();
    const dialog = owner.getByRole("dialog");
    await dialog.getByLabel("Name").fill("Orders pipeline");
    await dialog.getByLabel("Team", { exact: true }).selectOption("payments");
    await dialog.getByRole("button", { name: "Create key" }).click();
    await dialog.getByText("you will not see it again").waitFor();
    await shot(owner, "api-keys-secret", false);

    const provider = await open(PEOPLE.provider);
    await provider.goto(`${t.url}/access`);
    await provider.getByRole("button", { name: /Inbox \(2\)/ }).waitFor();
    await shot(provider, "access-inbox");
    await provider.goto(`${t.url}/access/${approved}`);
    await provider.getByText("Provisioning").first().waitFor();
    await shot(provider, "access");
    await provider.goto(`${t.url}/activity`);
    await provider.locator(".timeline li").first().waitFor();
    await shot(provider, "activity", false);

    const phone = await open(PEOPLE.consumer, 390, 844);
    await phone.goto(`${t.url}/dataproducts/orders`);
    await phone.getByRole("heading", { name: "Orders (PostgreSQL)" }).waitFor();
    await shot(phone, "phone-dataproduct");
    await phone.goto(`${t.url}/access`);
    await phone.getByRole("button", { name: "All requests" }).click();
    await shot(phone, "phone-access", false);
    await phone.getByRole("button", { name: "Menu" }).click();
    await phone.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).waitFor();
    await shot(phone, "phone-menu", false);
  } finally {
    await browser?.close();
    await t.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
