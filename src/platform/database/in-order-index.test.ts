import type { CompiledQuery } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteDatabase } from "../../../test/helpers/suite-database.js";
import { planOf, sentQueries } from "../../../test/helpers/query-plans.js";
import { accessRepository } from "../../modules/access/repository.js";
import { testResultRepository } from "../../modules/test-results/repository.js";
import { chunked } from "./chunks.js";
import type { Database } from "./index.js";

/** The organization's rows; other organizations have nine times as many, interleaved with them. */
const ROWS = 1000;

/**
 * Lookups of one access or test result by its id keep to the identity index on a table that was
 * never analyzed, and lists page in creation order from their `…_in_order` index (migration 0110)
 * instead of sorting all of an organization's rows. (Catalog documents:
 * `resource-lookup-plans.test.ts`.)
 */
describe.each(DATABASES)("lists read in order from their own index (%s)", (kind) => {
  const database = suiteDatabase(kind);
  const at = "2026-01-01T00:00:00.000Z";

  beforeAll(async () => {
    const db = database.db;
    await db.insertInto("organizations").values([{ id: "org", name: "Org", created_at: at }, { id: "other", name: "Other", created_at: at }]).execute();
    const access = (organization_id: string, i: number) => ({
      organization_id, id: `access-${i}`, status: "requested" as const, canceled_at: null, active: 0, start_at: null, end_at: null,
      provider_data_product_id: `product-${i % 7}`, provider_output_port_id: "port", provider_team_id: "provider", provider_product_row_id: null,
      provider_data_contract_id: null, consumer_type: "team" as const, consumer_data_product_id: null, consumer_team_id: "consumer", consumer_row_id: null,
      doc: "{}", provisioning: null, created_at: at, updated_at: at,
    });
    const run = (organization_id: string, i: number) => ({
      organization_id, id: `run-${i}`, data_contract_id: `contract-${i % 7}`, server: null, result: "passed", owner_team_id: null,
      summary: JSON.stringify({ id: `run-${i}` }), doc: "{}", created_at: at,
    });
    // Most rows are other organizations': reading the whole table in its own order and keeping one
    // organization's rows would cost as much as sorting them.
    const rows = Array.from({ length: ROWS }, (_, i) => [["org", i] as const, ...Array.from({ length: 9 }, (_, k) => ["other", i * 9 + k] as const)]).flat();
    for (const slice of chunked(rows.map(([org, i]) => access(org, i)))) await db.insertInto("accesses").values(slice).execute();
    for (const slice of chunked(rows.map(([org, i]) => run(org, i)))) await db.insertInto("test_results").values(slice).execute();
  });

  const sent = (run: (ex: Database["db"]) => Promise<unknown>) => sentQueries(database, run);
  const plan = (query: CompiledQuery) => planOf(database, query);
  /** On PostgreSQL, with sorts priced out: whether the page can be read in order (`planOf`). */
  const orderedPlan = (query: CompiledQuery) => planOf(database, query, { avoidingSorts: true });
  const sorts = kind === "postgres" ? /Sort/ : /TEMP B-TREE/;

  it("finds one access by its id through the identity index, also inside a write", async () => {
    for (const lock of [undefined, database.dialect]) {
      const [query] = await sent((ex) => accessRepository.get(ex, "org", "access-123", { lock }));
      const chosen = await plan(query);
      expect(chosen).not.toMatch(/accesses_in_order/);
      expect(chosen).toMatch(kind === "postgres" ? /accesses_identity/ : /\(organization_id=\? AND id=\?\)/);
      expect(await accessRepository.get(database.db, "org", "access-123", { lock })).toMatchObject({ id: "access-123" });
    }
  });

  it("finds one test result by its id through the identity index", async () => {
    const [query] = await sent((ex) => testResultRepository.get(ex, "org", "run-123"));
    const chosen = await plan(query);
    expect(chosen).not.toMatch(/test_results_in_order/);
    expect(chosen).toMatch(kind === "postgres" ? /test_results_identity/ : /\(organization_id=\? AND id=\?\)/);
    expect(await testResultRepository.get(database.db, "org", "run-123")).toMatchObject({ id: "run-123" });
  });

  it("pages through an organization's accesses in creation order, without sorting them all", async () => {
    for (const offset of [0, 800]) {
      const page = (ex: Database["db"]) => accessRepository.list(ex, "org", { offset, limit: 101 });
      const [query] = await sent(page);
      const chosen = await orderedPlan(query);
      expect(chosen, `offset ${offset}`).toMatch(/accesses_in_order/);
      expect(chosen, `offset ${offset}`).not.toMatch(sorts);
      expect((await page(database.db)).records.map((a) => a.id)).toEqual(Array.from({ length: 101 }, (_, i) => `access-${offset + i}`));
    }
    // A data product's accesses, and the other filters, still list exactly theirs.
    expect((await accessRepository.list(database.db, "org", { providerDataProductId: "product-3", offset: 0, limit: 3 })).records.map((a) => a.id)).toEqual(["access-3", "access-10", "access-17"]);
    expect((await accessRepository.list(database.db, "org", { status: "approved", offset: 0, limit: 3 })).records).toEqual([]);
  });

  it("pages through an organization's test results newest first, without sorting them all; one contract's from that contract's index", async () => {
    for (const offset of [0, 800]) {
      const page = (ex: Database["db"]) => testResultRepository.list(ex, "org", { offset, limit: 101 });
      const [query] = await sent(page);
      const chosen = await orderedPlan(query);
      expect(chosen, `offset ${offset}`).toMatch(/test_results_in_order/);
      expect(chosen, `offset ${offset}`).not.toMatch(sorts);
      const ids = (await page(database.db)).summaries.map((summary) => JSON.parse(summary).id);
      expect(ids).toEqual(Array.from({ length: 101 }, (_, i) => `run-${ROWS - 1 - offset - i}`));
    }
    const [byContract] = await sent((ex) => testResultRepository.list(ex, "org", { dataContractId: "contract-2", offset: 0, limit: 3 }));
    expect(await plan(byContract)).toMatch(/test_results_by_contract/);
    const newest = await testResultRepository.list(database.db, "org", { dataContractId: "contract-2", offset: 0, limit: 2 });
    expect(newest.summaries.map((summary) => JSON.parse(summary).id)).toEqual(["run-996", "run-989"]);
  });
});
