import type { CompiledQuery } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteDatabase } from "../../../test/helpers/suite-database.js";
import type { Database } from "../../platform/database/index.js";
import { planOf, sentQueries } from "../../../test/helpers/query-plans.js";
import { chunked } from "../../platform/database/chunks.js";
import { resourceRepository, type ListFilter } from "./resource-repository.js";

/**
 * Which index each catalog lookup reads, on a table that was never analyzed (a fresh
 * installation, or the first minutes of a large synchronization). A lookup of one document by its
 * id must read the identity index on both databases: PostgreSQL once read a list filter's index
 * instead, which starts with the same two columns, and scanned every asset for each lookup.
 */
describe.each(DATABASES)("the indexes catalog lookups read (%s)", (kind) => {
  const database = suiteDatabase(kind);
  const at = "2026-01-01T00:00:00.000Z";

  beforeAll(async () => {
    const db = database.db;
    await db.insertInto("organizations").values({ id: "org", name: "Org", created_at: at }).execute();
    const row = (rowKind: string, id: string, facts: { owner?: string; domain?: string; archetype?: string } = {}) => ({
      organization_id: "org", kind: rowKind, id, title: id, owner_team_id: facts.owner ?? null, status: null, domain: facts.domain ?? null,
      archetype: facts.archetype ?? null, search_text: id, doc: JSON.stringify({ id }), created_at: at, updated_at: at,
    });
    // Assets as a synchronizer writes them: no owner, domain or archetype.
    const assets = Array.from({ length: 3000 }, (_, i) => row("asset", `asset-${i}`));
    for (const slice of chunked(assets)) await db.insertInto("resources").values(slice).execute();
    await db.insertInto("resources").values([
      row("dataproduct", "orders", { owner: "sales", domain: "commerce", archetype: "source-aligned" }),
      row("dataproduct", "shelf", { owner: "ops", domain: "operations", archetype: "consumer-aligned" }),
      row("dataproduct", "plain"),
    ]).execute();
  });

  const sent = (run: (ex: Database["db"]) => Promise<unknown>) => sentQueries(database, run);
  const plan = (query: CompiledQuery) => planOf(database, query);

  it("finds one document by its id through the identity index, also inside a write", async () => {
    for (const lock of [undefined, database.dialect]) {
      const [query] = await sent((ex) => resourceRepository.get(ex, "org", "asset", "asset-1234", { lock }));
      // SQLite names the unique constraint's index itself; either way all three columns are searched.
      expect(await plan(query)).toMatch(kind === "postgres" ? /Index Cond: .*organization_id.*kind.*id = / : /\(organization_id=\? AND kind=\? AND id=\?\)/);
      if (kind === "postgres") expect(await plan(query)).toMatch(/using resources_identity/);
      expect(await resourceRepository.get(database.db, "org", "asset", "asset-1234", { lock })).toMatchObject({ id: "asset-1234" });
    }
  });

  it("finds several documents by their ids through the identity index, as reads made together ask for them", async () => {
    const ids = ["asset-7", "asset-1234", "missing"];
    const [query] = await sent((ex) => resourceRepository.getMany(ex, database.dialect, "org", "asset", ids));
    expect(await plan(query)).toMatch(kind === "postgres" ? /Index Cond: .*organization_id.*kind.*id = wanted\.id/ : /\(organization_id=\? AND kind=\? AND id=\?\)/);
    if (kind === "postgres") expect(await plan(query)).toMatch(/using resources_identity/);
    const rows = await resourceRepository.getMany(database.db, database.dialect, "org", "asset", ids);
    expect(rows.map((row) => row.id).sort()).toEqual(["asset-1234", "asset-7"]);
    // One id is asked for with the statement of a single read.
    const [single] = await sent((ex) => resourceRepository.getMany(ex, database.dialect, "org", "asset", ["asset-7"]));
    const [byGet] = await sent((ex) => resourceRepository.get(ex, "org", "asset", "asset-7"));
    expect(single.sql).toBe(byGet.sql);
    expect((await resourceRepository.getMany(database.db, database.dialect, "org", "asset", ["asset-7"])).map((row) => row.id)).toEqual(["asset-7"]);
  });

  it("filters lists by owner, domain and archetype through their own indexes, which hold only rows with a value", async () => {
    const list = (filter: Omit<ListFilter, "offset" | "limit">) => (ex: Database["db"]) => resourceRepository.list(ex, "org", "dataproduct", { ...filter, offset: 0, limit: 100 }, undefined, database.dialect);
    const cases: Array<[Omit<ListFilter, "offset" | "limit">, RegExp, string[]]> = [
      [{ ownerTeamId: "sales" }, /resources_by_owner/, ["orders"]],
      [{ domain: ["operations", "commerce"] }, /resources_by_domain/, ["orders", "shelf"]],
      [{ archetype: "consumer-aligned" }, /resources_by_archetype/, ["shelf"]],
    ];
    for (const [filter, index, ids] of cases) {
      const [sizes] = await sent(list(filter));
      expect(await plan(sizes), JSON.stringify(filter)).toMatch(index);
      expect((await list(filter)(database.db)).rows.map((r) => r.id)).toEqual(ids);
    }
    // Unfiltered, every product is listed, those without the values too.
    expect((await list({})(database.db)).rows.map((r) => r.id)).toEqual(["orders", "shelf", "plain"]);
  });

  it("pages through a kind's documents in creation order from their own index, without sorting them all", async () => {
    for (const offset of [0, 2500]) {
      const page = (ex: Database["db"]) => resourceRepository.list(ex, "org", "asset", { offset, limit: 101 }, undefined, database.dialect);
      const [sizes, documents] = await sent(page);
      const chosen = await plan(sizes);
      expect(chosen, `offset ${offset}`).toMatch(/resources_in_order/);
      expect(chosen, `offset ${offset}`).not.toMatch(kind === "postgres" ? /Sort/ : /TEMP B-TREE/);
      // The page's documents are then fetched by their row ids, not found among all of the kind's.
      // (PostgreSQL may scan a table this small instead of looking each row up.)
      const fetching = await plan(documents);
      expect(fetching).not.toMatch(/resources_identity|resources_in_order|sqlite_autoindex/);
      if (kind === "sqlite") expect(fetching).toMatch(/USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect((await page(database.db)).rows.map((r) => r.id)).toEqual(Array.from({ length: 101 }, (_, i) => `asset-${offset + i}`));
    }
  });
});
