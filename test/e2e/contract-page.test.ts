import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/** The contract page shows every promise of a contract, whatever its format (docs/formats.md). */

const fixture = (name: string) => readFileSync(new URL(`../fixtures/contracts/${name}`, import.meta.url), "utf8");

describe("the contract as people read it, in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const newPage = (email: string, viewport?: { width: number; height: number }): Promise<Page> => openPage(browser, contexts, t.url, email, viewport);

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
    // The fixtures' owners, as teams of the demo organization.
    await t.api("PUT", "/api/teams/finance", { name: "Finance", members: [{ emailAddress: PEOPLE.provider, role: "data product owner" }] });
    await t.api("PUT", "/api/teams/sales", { name: "Sales" });
    for (const [id, name] of [["payments-contract", "odcs-payments.yaml"], ["orders-quality", "dcs-1-orders-quality.yaml"]]) {
      const res = await t.api("PUT", `/api/datacontracts/${id}`, undefined, { raw: fixture(name), contentType: "application/yaml" });
      expect(res.status, res.text).toBe(200);
    }
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("shows every rule, classification, SLA property, role, server, support channel and the price of a full ODCS contract", async () => {
    const page = await newPage(PEOPLE.consumer);
    await page.goto(`${t.url}/datacontracts/payments-contract`);
    // No name: titled by its data product and business name.
    await page.getByRole("heading", { level: 1, name: "Payments — Card payments" }).waitFor();
    const fields = page.getByRole("table", { name: "Fields of payments" });
    const row = (name: string) => fields.getByRole("row").filter({ has: page.getByRole("rowheader", { name: new RegExp(`^${name}`) }) });
    await row("payment_id").getByText("primary key").waitFor();
    await row("payment_id").getByText("nullValues must be 0").waitFor();
    await row("amount_cents").getByText('invalidValues (validValues: [0]) must be less than 5 percent').waitFor();
    await row("currency").getByText("the query's result must be 0").waitFor();
    await row("card_last4").getByText("restricted").waitFor();
    await row("amount_cents").getByText("internal").waitFor();
    await row("merchant.country").getByText("public").waitFor();
    await page.getByText("rowCount must be greater than 1000").waitFor();

    const doc = parse(fixture("odcs-payments.yaml"));
    const sla = page.getByRole("table", { name: "Service levels" });
    for (const p of doc.slaProperties) await sla.getByRole("row").filter({ hasText: p.property }).getByText(`${p.value}${p.unit ? ` ${p.unit}` : ""}`).waitFor();
    const roles = page.getByRole("table", { name: "Roles" });
    for (const r of doc.roles) await roles.getByRole("rowheader", { name: r.role }).waitFor();
    await roles.getByText("Data protection officer").waitFor();
    const servers = page.getByRole("table", { name: "Servers" });
    for (const s of doc.servers) await servers.getByRole("rowheader", { name: s.server }).waitFor();
    await servers.getByText("db.example.com").waitFor();
    const support = page.getByRole("list", { name: "Support channels" });
    for (const s of doc.support) await support.getByText(s.channel).waitFor();
    await page.getByText("0.5 EUR per megabyte").waitFor();
    await page.getByText("Refunds arrive a day later than the payment they refund.").waitFor();
  });

  it("shows a Data Contract Specification 1.x contract's quality rules, allowed values, service levels and contact", async () => {
    const page = await newPage(PEOPLE.consumer);
    await page.goto(`${t.url}/datacontracts/orders-quality`);
    await page.getByRole("heading", { level: 1, name: "Orders with quality rules" }).waitFor();
    await page.getByText("the query's result must be greater than 10").waitFor();
    const fields = page.getByRole("table", { name: "Fields of orders" });
    await fields.getByText("duplicateValues must be 0").waitFor();
    await fields.getByText('one of "open", "shipped", "cancelled"').waitFor();
    await fields.getByText("sensitive").waitFor();
    const sla = page.getByRole("table", { name: "Service levels" });
    for (const [property, value] of [["availability", "99.5%"], ["retention", "P1Y"], ["latency", "25h"], ["frequency", "daily"]]) {
      await sla.getByRole("row").filter({ hasText: property }).getByText(value, { exact: true }).waitFor();
    }
    await page.getByRole("table", { name: "Servers" }).getByRole("rowheader", { name: "production" }).waitFor();
    await page.getByRole("link", { name: "Sales data team" }).waitFor();
    await page.getByText("Free of charge.").first().waitFor();
  });

  it("puts the latest test results per server next to the rules they checked", async () => {
    const res = await t.api("POST", "/api/test-results", {
      dataContractId: "payments-contract",
      server: "production",
      result: "failed",
      checks: [
        { type: "field_null_values", name: "payment_id has no nulls", result: "passed", model: "payments", field: "payment_id" },
        { type: "row_count", name: "rowCount > 1000", result: "failed", model: "payments" },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const page = await newPage(PEOPLE.consumer);
    await page.goto(`${t.url}/datacontracts/payments-contract`);
    const fields = page.getByRole("table", { name: "Fields of payments" });
    await fields.getByRole("row").filter({ hasText: "nullValues must be 0" }).getByText("production: passed").waitFor();
    await page.getByRole("article", { name: "payments" }).getByText("production: failed").first().waitFor();
  });

  it("shows a weaker SLA as breaking in the diff, and the gate refuses it while an approved access exists", async () => {
    const product = await t.api("PUT", "/api/dataproducts/payments", { info: { title: "Payments", owner: "finance" }, outputPorts: [{ id: "pg", type: "postgres", dataContractId: "payments-contract" }] });
    expect(product.status, product.text).toBe(200);
    const access = await t.api("POST", "/api/access", { info: { purpose: "Revenue reporting" }, provider: { dataProductId: "payments", outputPortId: "pg" }, consumer: { teamId: "analytics" } });
    expect((await t.api("POST", `/api/access/${access.body.id}/approve`, {})).status).toBe(200);
    const versions = async () => ((await t.api("GET", "/api/datacontracts/payments-contract/versions")).body as unknown[]).length;
    const before = await versions();
    const shorterRetention = (text: string) => text.replace("property: retention\n    value: 3", "property: retention\n    value: 1");

    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/datacontracts/payments-contract/edit`);
    const editor = page.getByLabel("Document", { exact: true });
    await editor.waitFor();
    const text = await editor.inputValue();
    expect(shorterRetention(text)).not.toBe(text);
    await editor.fill(shorterRetention(text));
    await page.getByRole("button", { name: "Save changes" }).click();
    const warning = page.getByRole("alert").filter({ hasText: "This change is breaking" });
    const breaking = warning.getByRole("list", { name: "Breaking changes" });
    await breaking.getByText("slaProperties[1]").waitFor();
    expect(await breaking.textContent()).toContain("retention is weaker: 1 y instead of 3 y");
    await warning.getByRole("list", { name: "Affected accesses" }).getByRole("link", { name: access.body.id }).waitFor();
    await warning.getByRole("button", { name: "Save the breaking change" }).click();
    await warning.getByText("Nothing was saved").waitFor();
    expect(await versions()).toBe(before);

    // Raising the major version announces the break: stored, and the diff shows it.
    await editor.fill(shorterRetention(text).replace("version: 1.0.0", "version: 2.0.0"));
    await page.getByRole("button", { name: "Save the breaking change" }).or(page.getByRole("button", { name: "Save changes" })).first().click();
    const saved = page.getByRole("heading", { level: 1, name: "Payments — Card payments", exact: true });
    const confirm = page.getByRole("alert").filter({ hasText: "This change is breaking" }).getByRole("button", { name: "Save the breaking change" });
    await Promise.race([saved.waitFor(), confirm.waitFor().then(() => confirm.click())]);
    await saved.waitFor();
    expect(await versions()).toBe(before + 1);
    await page.getByRole("button", { name: "Show changes" }).click();
    const changes = page.getByRole("list", { name: "Changes between the versions" });
    await changes.getByRole("listitem").filter({ hasText: "slaProperties[1]" }).getByText("breaking", { exact: true }).waitFor();
    const sideBySide = page.getByRole("table", { name: /side by side/ });
    await sideBySide.getByRole("row").filter({ hasText: "value: 3" }).filter({ hasText: "value: 1" }).waitFor();
  });

  it("round-trips a YAML document with comments through the editor byte for byte", async () => {
    const written = fixture("dcs-1-orders-quality.yaml").replace("dataContractSpecification: 1.2.1\n", "# Orders, as sales promise them.\ndataContractSpecification: 1.2.1 # the edition\n").replace("title: Orders with quality rules", "title: 'Orders with quality rules'");
    expect((await t.api("PUT", "/api/datacontracts/orders-quality", undefined, { raw: written, contentType: "application/yaml" })).status).toBe(200);
    const page = await newPage(PEOPLE.owner);
    await page.goto(`${t.url}/datacontracts/orders-quality/edit`);
    const editor = page.getByLabel("Document", { exact: true });
    await editor.waitFor();
    expect(await editor.inputValue()).toBe(written);
    // A changed comment and a changed value, saved: the text comes back exactly as typed.
    const edited = written.replace("# the edition", "# the edition Steward validates").replace("usage: Reporting on orders.", "usage: Reporting on orders and returns.");
    await editor.fill(edited);
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { level: 1, name: "Orders with quality rules", exact: true }).waitFor();
    expect((await t.api("GET", "/api/datacontracts/orders-quality/datacontract.yaml")).text).toBe(edited);
    await page.goto(`${t.url}/datacontracts/orders-quality/edit`);
    await editor.waitFor();
    expect(await editor.inputValue()).toBe(edited);
  });
});
