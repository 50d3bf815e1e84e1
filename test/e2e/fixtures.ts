import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ROOT } from "../helpers/cli.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";

/** Browser tests: a real Steward over SQLite on loopback, driven by the system's headless Chromium. */

export const PASSWORD = "steward-demo-password";
export const PEOPLE = {
  owner: "alice@example.com",
  provider: "paul@example.com",
  consumer: "carol@example.com",
};

/** Builds the web app when dist/web is missing (CI builds it in `npm ci` already). */
export async function ensureWebBuilt(): Promise<void> {
  if (existsSync(join(ROOT, "dist/web/index.html"))) return;
  const { build } = await import("vite");
  await build({ configFile: join(ROOT, "web/vite.config.ts"), logLevel: "warn" });
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-dev-shm-usage"],
  });
}

/** A loopback port free a moment ago: Steward's APP_URL must be known before the provider registers it. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Clicks "Sign in with Test IdP" on Steward at `appUrl`, signs in at the provider as `login`, consents, and waits to be back. */
export async function ssoSignIn(page: Page, appUrl: string, login: string): Promise<void> {
  await page.goto(`${appUrl}/sign-in`);
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await page.locator("input[name=login]").fill(login);
  await page.locator("input[name=password]").fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.waitForURL((url) => url.origin === appUrl || url.pathname.startsWith("/interaction/"));
  if (new URL(page.url()).origin !== appUrl) await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL((url) => url.origin === appUrl && !url.pathname.startsWith("/auth/"));
}

export const DBT_ORDERS = `version: 2
models:
  - name: orders
    description: One row per customer order, written when the order is placed.
    config:
      materialized: table
    columns:
      - name: order_id
        data_type: varchar
        description: Order number shown to the customer.
        tests: [not_null, unique]
      - name: customer_id
        data_type: varchar
        description: The customer who ordered.
        tests:
          - not_null
          - relationships:
              to: ref('customers')
              field: customer_id
      - name: placed_at
        data_type: timestamp
        description: When the order was placed (UTC).
        tests: [not_null]
      - name: amount
        data_type: numeric(12,2)
        description: Total in the order currency.
      - name: currency
        data_type: char(3)
        description: ISO 4217 code.
  - name: order_lines
    description: The items of each order.
    columns:
      - name: order_id
        data_type: varchar
        tests: [not_null]
      - name: sku
        data_type: varchar
      - name: quantity
        data_type: integer
`;

export const DBT_INVALID = `version: 2
models:
  - name: shipments
    columns:
      - name: shipment_id
        data_type: varchar
        tests: [not_null]
      - data_type: timestamp
        description: a column without a name
  - description: a model without a name
    columns: []
`;

/** The demo organization: two teams with members, a contract, two data products. */
export async function seed(t: TestServer): Promise<void> {
  const put = async (path: string, body: unknown) => {
    const res = await t.api("PUT", path, body);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  };
  await put("/api/teams/payments", {
    name: "Payments",
    type: "Team",
    description: "Checkout, orders and refunds.",
    members: [{ emailAddress: PEOPLE.provider, role: "data product owner" }],
  });
  await put("/api/teams/analytics", {
    name: "Analytics",
    type: "Team",
    description: "Reporting and forecasting.",
    members: [{ emailAddress: PEOPLE.consumer, role: "analyst" }],
  });
  await put("/api/teams/logistics", { name: "Logistics", type: "Team", description: "Warehouses and shipping." });
  await put("/api/datacontracts/orders-v1", {
    dataContractSpecification: "0.9.3",
    info: { title: "Orders", version: "1.2.0", owner: "payments", status: "active", description: "Every order placed in the web shop, one row per order, with its lines." },
    provider: { teamId: "payments", dataProductId: "orders", outputPortId: "orders-postgres" },
    terms: { usage: "Reporting, forecasting and fraud analysis.", limitations: "No re-identification of customers.", noticePeriod: "P3M" },
    schema: { type: "dbt", specification: DBT_ORDERS },
  });
  await put("/api/dataproducts/orders", {
    dataProductSpecification: "0.0.1",
    info: { title: "Orders", owner: "payments", status: "active", archetype: "source-aligned", maturity: "managed", description: "Orders placed in the web shop." },
    outputPorts: [
      {
        id: "orders-postgres",
        name: "Orders (PostgreSQL)",
        description: "Daily snapshot in the analytics warehouse.",
        type: "postgres",
        status: "active",
        server: { host: "warehouse.internal", database: "shop", schema: "orders" },
        dataContractId: "orders-v1",
        containsPii: true,
      },
    ],
    tags: ["sales", "core"],
  });
  await put("/api/dataproducts/revenue-dashboard", {
    dataProductSpecification: "0.0.1",
    info: { title: "Revenue dashboard", owner: "analytics", status: "in development", archetype: "consumer-aligned", description: "Daily revenue by market." },
    outputPorts: [],
  });
  await put("/api/dataproducts/shipments", {
    dataProductSpecification: "0.0.1",
    info: { title: "Shipments", owner: "logistics", status: "proposed", description: "Parcels handed to carriers." },
  });
  const db = t.server.services.database.db;
  await db.transaction().execute(async (trx) => {
    await t.server.services.people.addMember(trx, t.organizationId, PEOPLE.owner, "owner", PASSWORD);
    await t.server.services.people.addMember(trx, t.organizationId, PEOPLE.provider, "member", PASSWORD);
    await t.server.services.people.addMember(trx, t.organizationId, PEOPLE.consumer, "member", PASSWORD);
  });
}

export async function startSeededServer(): Promise<TestServer> {
  await ensureWebBuilt();
  const t = await startTestServer("sqlite");
  await seed(t);
  return t;
}

/**
 * A fresh browser context (one person, their own cookies), kept in `contexts` for closing, with
 * its page's default timeout set; signed in as `email` when one is given.
 */
export async function openPage(
  browser: Browser,
  contexts: BrowserContext[],
  baseUrl: string,
  email?: string,
  viewport = { width: 1280, height: 900 },
): Promise<Page> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  if (email !== undefined) await signIn(page, baseUrl, email);
  return page;
}

export async function signIn(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "Data products" }).waitFor();
}

export { request };
