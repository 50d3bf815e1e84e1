/**
 * Limits belong to the application they were configured for, not to the process: two applications
 * built one after the other in one process, each with its own DOCUMENT_LIMIT_BYTES and
 * PAGE_LIMIT_BYTES (docs/product.md §1), each enforce their own. The one built later does not
 * loosen, or tighten, the one built first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { startTestServer, type TestServer } from "./helpers/server.js";

const SMALL = { documentBytes: 16 * 1024, pageBytes: 8 * 1024 };
const LARGE = { documentBytes: 64 * 1024, pageBytes: 1024 * 1024 };
const SIZE_BETWEEN = 32 * 1024;

describe.each(DATABASES)("two applications in one process keep their own document limits (%s)", (kind) => {
  let strict: TestServer;
  let loose: TestServer;

  beforeAll(async () => {
    // The strict one first: before limits were given to each application, the one built last set them for all.
    strict = await startTestServer(kind, { limits: SMALL });
    loose = await startTestServer(kind, { limits: LARGE });
    for (const t of [strict, loose]) {
      expect((await t.api("PUT", "/api/teams/sales", { name: "Sales" })).status).toBe(200);
      expect((await t.api("PUT", "/api/teams/buyers", { name: "Buyers" })).status).toBe(200);
      await t.api("PUT", "/api/datacontracts/orders", { dataContractSpecification: "0.9.3", info: { title: "Orders", version: "1.0.0", owner: "sales" }, schema: { type: "custom", specification: "x" } });
      await t.api("PUT", "/api/dataproducts/shop", { info: { title: "Shop", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres", dataContractId: "orders" }] });
    }
  });
  afterAll(async () => {
    await strict?.close();
    await loose?.close();
  });

  const team = { name: "Big", description: "d".repeat(SIZE_BETWEEN) };
  const access = { info: { purpose: "p".repeat(SIZE_BETWEEN) }, provider: { dataProductId: "shop", outputPortId: "pg" }, consumer: { teamId: "buyers" } };

  it("a catalog document between the two limits is refused by the strict one only", async () => {
    const refused = await strict.api("PUT", "/api/teams/big", team);
    expect(refused.status, refused.text).toBe(413);
    expect(refused.body.detail).toContain(`limit of ${SMALL.documentBytes} bytes`);
    expect((await strict.api("GET", "/api/teams/big")).status).toBe(404);
    expect((await loose.api("PUT", "/api/teams/big", team)).status).toBe(200);
  });

  it("an access request between the two limits is refused by the strict one only", async () => {
    const refused = await strict.api("PUT", "/api/access/big", access);
    expect(refused.status, refused.text).toBe(413);
    expect(refused.body.detail).toContain(`limit of ${SMALL.documentBytes} bytes`);
    expect((await loose.api("PUT", "/api/access/big", access)).status).toBe(200);
  });

  it("each pages lists by its own byte limit", async () => {
    const note = "n".repeat(3000);
    for (const t of [strict, loose]) {
      for (let i = 0; i < 6; i++) expect((await t.api("PUT", `/api/teams/paged-${i}`, { name: `Paged ${i}`, description: note })).status).toBe(200);
    }
    const strictPage = await strict.api("GET", "/api/teams");
    const loosePage = await loose.api("GET", "/api/teams");
    expect(strictPage.headers.get("link")).toMatch(/rel="next"/);
    expect(loosePage.headers.get("link") ?? "").not.toMatch(/rel="next"/);
    expect(loosePage.body.length).toBeGreaterThan(strictPage.body.length);
  });
});
