import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/** Policies with their rule and "try it", classification schemes, and certifications on a product's page. */
describe("governance in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const newPage = (email: string): Promise<Page> => openPage(browser, contexts, t.url, email);
  const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true }).waitFor();

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("lists policies, shows a rule, and tries it and a draft of it over the current data", async () => {
    const rule = { condition: "port.containsPii && !has(access.info.endDate)", effect: "deny", gates: ["access.request"], message: "PII access ends." };
    expect((await t.api("PUT", "/api/policies/pii-end", { name: "PII access ends", status: "Draft", content: "Access to personal data has an end date.", rule })).status).toBe(200);
    expect((await t.api("PUT", "/api/policies/owners", { name: "Owners", status: "Accepted", content: "Every product has an owner." })).status).toBe(200);
    const open = await t.api("PUT", "/api/access/analytics-orders", { info: { purpose: "Reporting" }, provider: { dataProductId: "orders", outputPortId: "orders-postgres" }, consumer: { teamId: "analytics" } });
    expect(open.status, open.text).toBe(200);

    const page = await newPage(PEOPLE.owner);
    await page.goto(`${t.url}/policies`);
    await heading(page, "Policies");
    await page.getByRole("link", { name: "PII access ends" }).waitFor();
    expect(await page.getByRole("row").count()).toBe(3);
    await page.getByRole("link", { name: "PII access ends" }).click();
    await heading(page, "PII access ends");
    expect(await page.locator("pre.code").textContent()).toBe(rule.condition);
    await page.getByText("Not enforced: only Accepted policies decide.").first().waitFor();
    expect(await page.getByText("Not enforced: only Accepted policies decide.").count()).toBe(1);

    await page.getByRole("button", { name: "Try it" }).click();
    const verdict = page.getByRole("table", { name: "What the rule would decide" });
    await verdict.waitFor();
    expect(await verdict.getByRole("link", { name: "analytics-orders" }).count()).toBe(1);
    await page.getByText("it would deny 1,").first().waitFor();
    expect(await page.getByText("it would deny 1,").count()).toBe(1);

    // A draft that does not compile says where.
    await page.getByLabel("Condition (CEL)").fill("port.containsPii &&");
    await page.getByRole("button", { name: "Try it" }).click();
    await page.getByRole("alert").getByText(/line 1, column \d+: syntax error/i).waitFor();
    await page.getByLabel("Condition (CEL)").fill("false");
    await page.getByRole("button", { name: "Try it" }).click();
    await page.getByText("it would deny 0,").waitFor();
    // Trying changed nothing.
    expect((await t.api("GET", "/api/policies/pii-end")).body.rule.condition).toBe(rule.condition);
  }, 60_000);

  it("shows, on an access's page, what each policy says and how many approvals it has before anyone approves", async () => {
    const rule = { condition: "port.containsPii", effect: "require-approvals", gates: ["access.request"], approvals: { count: 2 }, message: "Two people approve PII." };
    expect((await t.api("PUT", "/api/policies/two", { name: "Two approvers for PII", status: "Accepted", rule })).status).toBe(200);
    const held = await t.api("PUT", "/api/access/held", { info: { purpose: "Forecasts", endDate: "2030-01-01" }, provider: { dataProductId: "orders", outputPortId: "orders-postgres" }, consumer: { teamId: "analytics" } });
    expect(held.body.info.status).toBe("requested");
    const page = await newPage(PEOPLE.owner);
    await page.goto(`${t.url}/access/held`);
    const section = page.getByRole("region", { name: "What the policies say" });
    await section.waitFor();
    expect(await section.getByRole("list", { name: "Approvals needed" }).textContent()).toContain("0 of 2 approvals: Two approvers for PII (you may give one)");
    expect(await section.getByRole("list", { name: "Verdicts" }).textContent()).toContain("Two people approve PII.");
    expect((await t.api("PUT", "/api/policies/two", { name: "Two approvers for PII", status: "Deprecated", rule })).status).toBe(200);
  }, 60_000);

  it("shows classification schemes and a product's certifications", async () => {
    await t.api("PUT", "/api/classification-schemes/classification", { name: "Sensitivity", customProperty: "classification", classifications: [{ externalId: "public", name: "Public", level: 1 }, { externalId: "restricted", name: "Restricted", level: 4 }] });
    await t.api("PUT", "/api/certifications/gold", { name: "Gold", tag: "core", restricted: true, criteria: "All checks pass." });
    const page = await newPage(PEOPLE.owner);
    await page.goto(`${t.url}/classification-schemes`);
    await heading(page, "Classification schemes");
    await page.getByRole("table", { name: "Tiers of Sensitivity" }).getByRole("row", { name: /Restricted/ }).waitFor();
    expect(await page.getByRole("table", { name: "Tiers of Sensitivity" }).getByRole("row").count()).toBe(3);
    await page.goto(`${t.url}/certifications`);
    await heading(page, "Certifications");
    await page.getByText("All checks pass.").first().waitFor();
    expect(await page.getByText("All checks pass.").count()).toBe(1);
    await page.goto(`${t.url}/dataproducts/orders`);
    await heading(page, "Orders");
    await page.getByText("Gold certified").waitFor();
  }, 60_000);
  it("shows in the contract editor what each accepted policy at contract.publish says about the draft, before saving, and saves nothing", async () => {
    const describe = { condition: "!has(contract.info.description) || size(contract.info.description) < 20", effect: "deny", gates: ["contract.publish"], message: "Describe the contract in a sentence." };
    const terms = { condition: "!has(contract.terms)", effect: "warn", gates: ["contract.publish"] };
    expect((await t.api("PUT", "/api/policies/described", { name: "Described contracts", status: "Accepted", rule: describe })).status).toBe(200);
    expect((await t.api("PUT", "/api/policies/terms", { name: "Terms of use", status: "Accepted", rule: terms })).status).toBe(200);
    const stored = (await t.api("GET", "/api/datacontracts/orders-v1")).body;

    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/datacontracts/orders-v1/edit`);
    await heading(page, "Edit Orders");
    await page.getByRole("button", { name: "Form", exact: true }).click();
    await page.getByLabel("Description").fill("Orders.");
    await page.getByRole("button", { name: "Check against the policies" }).click();
    await page.getByText("1 policy would refuse this draft.").waitFor();
    const said = page.getByRole("list", { name: "What each policy says" });
    const refusing = said.getByRole("listitem").filter({ hasText: "Described contracts" });
    expect(await refusing.textContent()).toContain("would refuse: Describe the contract in a sentence.");
    expect(await said.getByRole("listitem").filter({ hasText: "Terms of use" }).textContent()).toContain("passes");

    await page.getByLabel("Description").fill("Every order placed in the web shop.");
    await page.getByRole("button", { name: "Check against the policies" }).click();
    await page.getByText("No policy would refuse this draft.").waitFor();
    // Checking wrote nothing.
    expect((await t.api("GET", "/api/datacontracts/orders-v1")).body).toEqual(stored);
    for (const [id, name] of [["described", "Described contracts"], ["terms", "Terms of use"]] as const) {
      expect((await t.api("PUT", `/api/policies/${id}`, { name, status: "Deprecated" })).status).toBe(200);
    }
  }, 60_000);
});
