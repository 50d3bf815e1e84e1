import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../helpers/server.js";
import { launchBrowser, openPage, PEOPLE, startSeededServer } from "./fixtures.js";

/** Creating, editing and deleting catalog documents in the browser, and the writes that must not overwrite. */

describe("catalog editing in a browser", () => {
  let t: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const newPage = (email: string): Promise<Page> => openPage(browser, contexts, t.url, email);
  const heading = (page: Page, name: string) => page.getByRole("heading", { level: 1, name, exact: true }).waitFor();
  /** The document editor's text: replaced as a person pasting would. */
  const typeDocument = async (page: Page, text: string) => {
    await page.getByRole("button", { name: "YAML / JSON" }).click();
    await page.getByLabel("Document", { exact: true }).fill(text);
  };

  beforeAll(async () => {
    [t, browser] = await Promise.all([startSeededServer(), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
  });

  it("creates, renames and deletes a team, and says so plainly when a field is wrong", async () => {
    const page = await newPage(PEOPLE.owner);
    await page.goto(`${t.url}/teams`);
    await page.getByRole("link", { name: "New team" }).click();
    await heading(page, "New team");
    // The id rule is stated as the server enforces it.
    expect(await page.locator("#doc-id-hint").textContent()).toContain("1 to 256 characters, anything but a slash (/)");
    await page.getByLabel("Id", { exact: true }).fill("finance");
    await page.getByRole("button", { name: "Create team" }).click();
    // An empty name: the server's violation, in words, at the field.
    const nameError = page.locator("#team-name-error");
    await nameError.waitFor();
    expect(await nameError.textContent()).toBe("The name cannot be empty.");
    expect(await page.content()).not.toContain("must NOT have fewer");
    expect((await t.api("GET", "/api/teams/finance")).status).toBe(404);

    await page.getByLabel("Name", { exact: true }).fill("Finance");
    await page.getByLabel("Description").fill("Budgets and invoices.");
    await page.getByRole("button", { name: "Create team" }).click();
    await heading(page, "Finance");
    expect(new URL(page.url()).pathname).toBe("/teams/finance");

    await page.getByRole("link", { name: "Edit", exact: true }).click();
    await heading(page, "Edit Finance");
    await page.getByLabel("Name", { exact: true }).fill("Finance and Controlling");
    await page.getByRole("button", { name: "Save changes" }).click();
    await heading(page, "Finance and Controlling");
    expect((await t.api("GET", "/api/teams/finance")).body).toMatchObject({ name: "Finance and Controlling", description: "Budgets and invoices." });

    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete team" }).click();
    await heading(page, "Teams");
    expect((await t.api("GET", "/api/teams/finance")).status).toBe(404);
  });

  it("refuses to delete a team that still owns data products, and shows the server's reason", async () => {
    const page = await newPage(PEOPLE.owner);
    await page.goto(`${t.url}/teams/logistics`);
    await heading(page, "Logistics");
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Delete team" }).click();
    const alert = dialog.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Not possible in the current state");
    expect((await t.api("GET", "/api/teams/logistics")).status).toBe(200);
  });

  it("says a person is already a member instead of re-adding them", async () => {
    const page = await newPage(PEOPLE.owner);
    await page.goto(`${t.url}/teams/payments`);
    await heading(page, "Payments");
    await page.getByLabel("Add a member by email").fill(PEOPLE.provider.toUpperCase());
    await page.getByLabel("Role in the team").fill("member");
    await page.getByRole("button", { name: "Add member" }).click();
    await page.getByText(`${PEOPLE.provider} is already a member of Payments (data product owner)`).waitFor();
    const team = (await t.api("GET", "/api/teams/payments")).body;
    expect(team.members).toEqual([{ emailAddress: PEOPLE.provider, role: "data product owner" }]);
  });

  it("creates a data product with the form, edits it, and deletes it", async () => {
    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/dataproducts`);
    await page.getByRole("link", { name: "New data product" }).click();
    await heading(page, "New data product");
    await page.getByLabel("Id", { exact: true }).fill("refunds");
    await page.getByLabel("Title").fill("Refunds");
    await page.getByLabel("Owner team").selectOption("payments");
    await page.getByRole("button", { name: "Add output port" }).click();
    await page.getByLabel("Port id").fill("refunds-postgres");
    await page.getByLabel("Type", { exact: true }).fill("postgres");
    await page.getByLabel("Data contract").selectOption("orders-v1");
    await page.getByRole("button", { name: "Create data product" }).click();
    await heading(page, "Refunds");
    // A port without a name is shown, and requested, by its id.
    await page.getByRole("heading", { level: 3, name: "refunds-postgres" }).waitFor();
    await page.getByRole("button", { name: "Request access to refunds-postgres" }).click();
    await page.getByRole("dialog", { name: "Request access to refunds-postgres" }).waitFor();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
    expect((await t.api("GET", "/api/dataproducts/refunds")).body).toMatchObject({
      info: { title: "Refunds", owner: "payments" },
      outputPorts: [{ id: "refunds-postgres", type: "postgres", dataContractId: "orders-v1" }],
    });

    await page.getByRole("link", { name: "Edit", exact: true }).click();
    await heading(page, "Edit Refunds");
    await page.getByLabel("Title").fill("Refunds and chargebacks");
    await page.getByLabel("Port name").fill("Refunds (PostgreSQL)");
    await page.getByRole("button", { name: "Save changes" }).click();
    await heading(page, "Refunds and chargebacks");
    await page.getByRole("heading", { level: 3, name: "Refunds (PostgreSQL)" }).waitFor();

    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete data product" }).click();
    await heading(page, "Data products");
    expect((await t.api("GET", "/api/dataproducts/refunds")).status).toBe(404);
  });

  it("creates a data product from YAML, shows a problem at its line, and edits it as YAML", async () => {
    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/dataproducts/new`);
    await heading(page, "New data product");
    await page.getByLabel("Id", { exact: true }).fill("chargebacks");
    await typeDocument(
      page,
      ["dataProductSpecification: 0.0.1", "info:", "  title: Chargebacks", "  owner: payments", "outputPorts:", "  - name: No id here", "    type: postgres", ""].join("\n"),
    );
    await page.getByRole("button", { name: "Create data product" }).click();
    const problems = page.getByRole("region", { name: "Problems in the document" });
    await problems.waitFor();
    expect(await problems.textContent()).toMatch(/Line 6.*outputPorts\[0\]\.id is required\./);
    expect(await page.locator(".gutter span.flagged").first().textContent()).toBe("6");

    await page.getByLabel("Document", { exact: true }).fill(
      ["dataProductSpecification: 0.0.1", "info:", "  title: Chargebacks", "  owner: payments", "outputPorts:", "  - id: chargebacks-kafka", "    type: kafka", ""].join("\n"),
    );
    await page.getByRole("button", { name: "Create data product" }).click();
    await heading(page, "Chargebacks");

    await page.getByRole("link", { name: "Edit", exact: true }).click();
    await heading(page, "Edit Chargebacks");
    await page.getByRole("button", { name: "YAML / JSON" }).click();
    const text = await page.getByLabel("Document", { exact: true }).inputValue();
    await page.getByLabel("Document", { exact: true }).fill(text.replace("title: Chargebacks", "title: Card chargebacks"));
    await page.getByRole("button", { name: "Save changes" }).click();
    await heading(page, "Card chargebacks");
  });

  it("imports a YAML file into the editor", async () => {
    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/dataproducts/new`);
    await heading(page, "New data product");
    await page.getByRole("button", { name: "YAML / JSON" }).click();
    await page.locator('input[type="file"]').setInputFiles({
      name: "invoices.yaml",
      mimeType: "application/yaml",
      buffer: Buffer.from("dataProductSpecification: 0.0.1\nid: invoices\ninfo:\n  title: Invoices\n  owner: payments\n"),
    });
    // The browser reads the file asynchronously: wait until the editor holds it.
    await expect.poll(() => page.getByLabel("Document", { exact: true }).inputValue()).toContain("title: Invoices");
    // The id comes from the document when the Id field is left empty.
    await page.getByRole("button", { name: "Create data product" }).click();
    await heading(page, "Invoices");
    expect(new URL(page.url()).pathname).toBe("/dataproducts/invoices");
  });

  it("warns before leaving unsaved edits, and offers no editing to a person of another team", async () => {
    const page = await newPage(PEOPLE.provider);
    await page.goto(`${t.url}/teams/payments/edit`);
    await heading(page, "Edit Payments");
    await page.getByLabel("Description").fill("Something not saved yet");
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Data products" }).click();
    await expect.poll(() => asked).toContain("not saved");
    expect(new URL(page.url()).pathname).toBe("/teams/payments/edit");
    expect(await page.getByLabel("Description").inputValue()).toBe("Something not saved yet");

    // Carol acts for Analytics only: Payments' product has no Edit for her, and its edit page says why.
    const other = await newPage(PEOPLE.consumer);
    await other.goto(`${t.url}/dataproducts/orders`);
    await heading(other, "Orders");
    expect(await other.getByRole("link", { name: "Edit", exact: true }).count()).toBe(0);
    expect(await other.getByRole("button", { name: "Delete", exact: true }).count()).toBe(0);
    await other.goto(`${t.url}/dataproducts/orders/edit`);
    await other.getByText("You cannot change this data product").waitFor();
    expect(await other.getByRole("button", { name: "Save changes" }).count()).toBe(0);
  });
});
