import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { searchRepository } from "../src/modules/search/repository.js";
import { createTestDatabase, DATABASES } from "./helpers/databases.js";

/** Documents stored before search read narrow rows of its own (migration 0291) are found, ranked and filtered as before. */
describe.each(DATABASES)("migrating the search index to its own rows (%s)", (kind) => {
  it("finds the documents there were, and keeps later writes in step", async () => {
    const test = await createTestDatabase(kind);
    const database = openDatabase(test.url);
    try {
      await migrateToLatest(database, "0285_lineage_events_once");
      const db = database.db as any;
      const at = "2026-01-01T00:00:00.000Z";
      for (const org of ["org", "other"]) await db.insertInto("organizations").values({ id: org, name: org, created_at: at }).execute();
      const resource = (org: string, kind: string, id: string, title: string, owner: string | null, words: string) => ({
        organization_id: org, kind, id, title, owner_team_id: owner, status: null, search_text: `${id} ${words}`, doc: JSON.stringify({ id }), created_at: at, updated_at: at,
      });
      await db.insertInto("resources").values([
        resource("org", "team", "sales", "Sales", null, "pelican"),
        resource("org", "dataproduct", "pelican", "Pelican", "sales", "birds"),
        resource("org", "asset", "pelican_table", "raw_table", null, "raw"),
        resource("other", "team", "pelicans", "Pelicans", null, ""),
      ]).execute();

      await migrateToLatest(database);
      const search = (terms: string[], extra: { kinds?: string[]; ownerTeamId?: string } = {}) =>
        searchRepository
          .search(database.db, database.dialect, "org", { terms, kinds: (extra.kinds ?? ["team", "dataproduct", "asset"]) as any, ownerTeamId: extra.ownerTeamId, offset: 0, limit: 20 })
          .then((rows) => rows.map((r) => r.id));
      // The title match first; the other organization's team is not there.
      const found = await search(["pelican"]);
      expect(found[0]).toBe("pelican");
      expect([...found].sort()).toEqual(["pelican", "pelican_table", "sales"]);
      expect(await search(["pelican_tab"])).toEqual(["pelican_table"]);
      expect(await search(["pelican"], { ownerTeamId: "sales" })).toEqual(["pelican"]);
      expect(await search(["pelican"], { kinds: ["team"] })).toEqual(["sales"]);

      await db.updateTable("resources").set({ title: "Heron", search_text: "pelican heron" }).where("id", "=", "pelican").execute();
      await db.deleteFrom("resources").where("id", "=", "pelican_table").execute();
      expect(await search(["heron"])).toEqual(["pelican"]);
      expect((await search(["pelican"])).sort()).toEqual(["pelican", "sales"]);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
