/**
 * DOCUMENT_LIMIT_BYTES and PAGE_LIMIT_BYTES (docs/product.md §1, §3) hold for the documents kept
 * outside the catalog's own table too: access requests with their provisioning records, published
 * test runs, and the tags assigned to an asset. Past a limit: a problem naming it, nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { startTestServer, type ApiResponse, type TestServer } from "./helpers/server.js";

const DOCUMENT_BYTES = 16 * 1024;
const PAGE_BYTES = 8 * 1024;

function expectProblem(res: ApiResponse, status: number, limit: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(res.body.detail).toContain(limit);
}

/** Every item of a list, following its `Link`s; each page within PAGE_BYTES but for a page of one. */
async function readAll(t: TestServer, first: string): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let pages = 0;
  let next: string | undefined = first;
  while (next) {
    const res: ApiResponse = await t.api("GET", next);
    expect(res.status, res.text).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    if (res.body.length > 1) expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(PAGE_BYTES + 1024);
    items.push(...res.body);
    pages++;
    next = /<([^>]+)>; rel="next"/.exec(res.headers.get("link") ?? "")?.[1];
  }
  return { items, pages };
}

describe.each(DATABASES)("stored-document and page byte limits (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, { maxAssignedTags: 3, limits: { documentBytes: DOCUMENT_BYTES, pageBytes: PAGE_BYTES } });
    await t.api("PUT", "/api/teams/sales", { name: "Sales" });
    await t.api("PUT", "/api/teams/buyers", { name: "Buyers" });
    await t.api("PUT", "/api/datacontracts/orders", { dataContractSpecification: "0.9.3", info: { title: "Orders", version: "1.0.0", owner: "sales" }, schema: { type: "custom", specification: "x" } });
    await t.api("PUT", "/api/dataproducts/shop", { info: { title: "Shop", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres", dataContractId: "orders" }] });
  });
  afterAll(() => t?.close());

  const access = (purpose: string) => ({ info: { purpose }, provider: { dataProductId: "shop", outputPortId: "pg" }, consumer: { teamId: "buyers" } });

  it("413 for an access over DOCUMENT_LIMIT_BYTES, created or changed; nothing stored", async () => {
    const big = "p".repeat(DOCUMENT_BYTES);
    expectProblem(await t.api("PUT", "/api/access/too-big", access(big)), 413, "DOCUMENT_LIMIT_BYTES");
    expectProblem(await t.api("POST", "/api/access", access(big)), 413, "DOCUMENT_LIMIT_BYTES");
    expect((await t.api("GET", "/api/access/too-big")).status).toBe(404);
    expect((await t.api("GET", "/api/access")).body).toEqual([]);

    expect((await t.api("PUT", "/api/access/grows", access("small"))).status).toBe(200);
    expectProblem(await t.api("PUT", "/api/access/grows", access(big)), 413, "DOCUMENT_LIMIT_BYTES");
    expect((await t.api("GET", "/api/access/grows")).body.info.purpose).toBe("small");
  });

  it("413 for a provisioning record that would take its access over DOCUMENT_LIMIT_BYTES; nothing stored", async () => {
    expect((await t.api("PUT", "/api/access/provisioned", access("x".repeat(DOCUMENT_BYTES / 2)))).status).toBe(200);
    const before = (await t.api("GET", "/api/access/provisioned")).headers.get("etag");
    // Each alone within the limit, but not together with the access.
    const diagnostics = { log: "d".repeat(DOCUMENT_BYTES * 0.6) };
    expectProblem(await t.api("POST", "/api/access/provisioned/provisioning/provisioning-started", { diagnostics }), 413, "DOCUMENT_LIMIT_BYTES");
    expectProblem(await t.api("PUT", "/api/access/provisioned/provisioning", { status: "provisioning", diagnostics }), 413, "DOCUMENT_LIMIT_BYTES");
    // A report alone over the limit is refused before it is looked at.
    expectProblem(await t.api("PUT", "/api/access/provisioned/provisioning", { status: "provisioning", diagnostics: "d".repeat(DOCUMENT_BYTES * 2) }), 413, "DOCUMENT_LIMIT_BYTES");
    expect((await t.api("GET", "/api/access/provisioned")).headers.get("etag")).toBe(before);
    expect((await t.api("GET", "/api/access/provisioned/provisioning")).status).toBe(404);
    expect((await t.api("POST", "/api/access/provisioned/provisioning/provisioning-started", { diagnostics: { log: "ok" } })).status).toBe(200);
  });

  it("keeps pages of accesses within PAGE_LIMIT_BYTES and links to the rest", async () => {
    for (let i = 0; i < 6; i++) expect((await t.api("PUT", `/api/access/paged-${i}`, access("a".repeat(3000)))).status).toBe(200);
    const { items, pages } = await readAll(t, "/api/access?consumerTeamId=buyers");
    expect(pages).toBeGreaterThan(2);
    expect(items.map((a) => a.id)).toEqual(["grows", "provisioned", ...Array.from({ length: 6 }, (_, i) => `paged-${i}`)]);
  });

  const run = (id: string, log: string) => ({ id, dataContractId: "orders", result: "passed", checks: [{ type: "schema", result: "passed" }], logs: [{ message: log }] });

  it("413 for a test run over DOCUMENT_LIMIT_BYTES; nothing stored", async () => {
    expectProblem(await t.api("POST", "/api/test-results", run("huge", "l".repeat(DOCUMENT_BYTES))), 413, "DOCUMENT_LIMIT_BYTES");
    expect((await t.api("GET", "/api/test-results/huge")).status).toBe(404);
    // Members sent as null are not stored, so they do not count.
    const nulls = { ...run("with-nulls", "ok"), checks: Array.from({ length: 400 }, () => ({ type: "schema", result: "passed", name: null, model: null, field: null, reason: null })) };
    expect(JSON.stringify(nulls).length).toBeGreaterThan(DOCUMENT_BYTES);
    expect((await t.api("POST", "/api/test-results", nulls)).status).toBe(200);
  });

  it("keeps pages of test runs within PAGE_LIMIT_BYTES and links to the rest", async () => {
    // Lists leave out checks and logs, so only what else a run holds counts for the page.
    for (let i = 0; i < 6; i++) expect((await t.api("POST", "/api/test-results", { ...run(`paged-${i}`, "ok"), note: "n".repeat(3000) })).status).toBe(200);
    const { items, pages } = await readAll(t, "/api/test-results");
    expect(pages).toBeGreaterThan(2);
    expect(items.map((r) => r.id)).toEqual([...Array.from({ length: 6 }, (_, i) => `paged-${5 - i}`), "with-nulls"]);
  });

  it("keeps an asset with its assigned tags within DOCUMENT_LIMIT_BYTES, and within MAX_ASSIGNED_TAGS tags", async () => {
    expect((await t.api("PUT", "/api/assets/near", { info: { name: "near", description: "d".repeat(DOCUMENT_BYTES - 400) } })).status).toBe(200);
    const tag = "t".repeat(250);
    for (const name of [tag, `${tag}2`, "a", "b", "c", "d"]) expect((await t.api("PUT", `/api/tags/${name}`, { owner: "sales" })).status).toBe(200);
    expect((await t.api("PUT", `/api/assets/near/assigned-tags/${tag}`)).status).toBe(200);
    expectProblem(await t.api("PUT", `/api/assets/near/assigned-tags/${tag}2`), 413, "DOCUMENT_LIMIT_BYTES");
    expect((await t.api("GET", "/api/assets/near/assigned-tags")).body).toEqual([tag]);

    expect((await t.api("PUT", "/api/assets/many", { info: { name: "many" } })).status).toBe(200);
    for (const name of ["a", "b", "c"]) expect((await t.api("PUT", `/api/assets/many/assigned-tags/${name}`)).status).toBe(200);
    expectProblem(await t.api("PUT", "/api/assets/many/assigned-tags/d"), 422, "MAX_ASSIGNED_TAGS");
    // Assigning one it has, and removing one, still work at the limit.
    expect((await t.api("PUT", "/api/assets/many/assigned-tags/a")).body).toEqual(["a", "b", "c"]);
    expect((await t.api("DELETE", "/api/assets/many/assigned-tags/a")).body).toEqual(["b", "c"]);
    expect((await t.api("PUT", "/api/assets/many/assigned-tags/d")).body).toEqual(["b", "c", "d"]);
  });

  it("413 for a proposed contract over DOCUMENT_LIMIT_BYTES, as its PUT would be", async () => {
    const contract = (description: string) => ({
      dataContractSpecification: "0.9.3",
      info: { title: "Proposed", version: "1.0.0", owner: "sales", description },
      schema: { type: "custom", specification: "x" },
    });
    expect((await t.api("PUT", "/api/datacontracts/proposed", contract("small"))).status).toBe(200);
    expectProblem(await t.api("POST", "/api/datacontracts/proposed/changes", contract("x".repeat(DOCUMENT_BYTES))), 413, "DOCUMENT_LIMIT_BYTES");
    expect((await t.api("POST", "/api/datacontracts/proposed/changes", contract("still small"))).status).toBe(200);
  });
});
