/**
 * Limits belong to the application they were configured for, not to the process: two applications
 * built one after the other in one process, each with its own DOCUMENT_LIMIT_BYTES,
 * PAGE_LIMIT_BYTES, MAX_MODEL_FIELDS and WORKER_QUEUE_PER_ORGANIZATION (docs/product.md §1), each
 * enforce their own. The one built later does not loosen, or tighten, the one built first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { startTestServer, type TestServer } from "./helpers/server.js";

const SMALL = { documentBytes: 16 * 1024, pageBytes: 8 * 1024, modelFields: 5, workerQueuePerOrganization: 1 };
const LARGE = { documentBytes: 64 * 1024, pageBytes: 1024 * 1024, modelFields: 1000, workerQueuePerOrganization: 8 };
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

  it("a contract with more fields than the strict one's MAX_MODEL_FIELDS is refused by it only", async () => {
    const fields = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`column_${i}`, { type: "string" }]));
    const contract = { dataContractSpecification: "1.1.0", id: "wide", info: { title: "Wide", version: "1.0.0", owner: "sales" }, models: { wide: { fields } } };
    const refused = await strict.api("PUT", "/api/datacontracts/wide", contract);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.text).toContain("limit of 5");
    expect((await strict.api("GET", "/api/datacontracts/wide")).status).toBe(404);
    const stored = await loose.api("PUT", "/api/datacontracts/wide", contract);
    expect(stored.status, stored.text).toBe(200);
  });

  it("each holds an organization to its own share of its own worker threads", async () => {
    // A YAML body over 4 KiB is parsed on a worker thread, as work of the key's organization.
    const text = ["name: Yaml team", "description: >-", ...Array.from({ length: 200 }, (_, i) => `  line ${i} of a description long enough to go to a worker`)].join("\n") + "\n";
    expect(text.length).toBeGreaterThan(4 * 1024);
    const yaml = { raw: text, contentType: "application/yaml" };
    // Work of the organization's own, long enough to hold its one place in the strict application's workers.
    const filler = ["custom:", ...Array.from({ length: 60_000 }, (_, i) => `  k${i}: v${i}`)].join("\n");
    for (const t of [strict, loose]) {
      const held = t.server.services.parsing.workers.run("parseYaml", filler, 60_000, t.organizationId).catch(() => undefined);
      const answer = await t.api("PUT", "/api/teams/yaml", undefined, yaml);
      await held;
      if (t === strict) {
        expect(answer.status, answer.text).toBe(429);
        expect((await t.api("GET", "/api/teams/yaml")).status).toBe(404);
      } else {
        expect(answer.status, answer.text).toBe(200);
      }
    }
    // Closing the strict application stops its threads only: the loose one still parses on its own.
    await strict.server.services.parsing.workers.close();
    const again = await loose.api("PUT", "/api/teams/yaml-again", undefined, yaml);
    expect(again.status, again.text).toBe(200);
  });
});
