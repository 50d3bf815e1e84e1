import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { lineageRepository } from "../src/modules/lineage/repository.js";
import { createTestDatabase, DATABASES } from "./helpers/databases.js";

/**
 * Before migration 0285, an event without `eventType` sent again was stored again (a null in a
 * unique key repeats on both databases). The migration keeps the first copy of each, with its
 * edges, drops the later ones and their edges, and from then on the copy is refused.
 */
describe.each(DATABASES)("keeping stored lineage events once (%s)", (kind) => {
  it("removes the copies stored before, with their edges, and stores none after", async () => {
    const test = await createTestDatabase(kind);
    const database = openDatabase(test.url);
    try {
      await migrateToLatest(database, "0270_violation_reads");
      const db = database.db as any;
      const at = "2026-01-01T00:00:00.000Z";
      await db.insertInto("organizations").values([{ id: "org", name: "Org", created_at: at }, { id: "other", name: "Other", created_at: at }]).execute();
      const event = (organization: string, run: string, type: string | null) => ({
        organization_id: organization, run_id: run, event_type: type, event_time: at, job_namespace: "dbt", job_name: "daily",
        data_product_id: null, output_port_name: null, team_id: null, doc: JSON.stringify({ run, type }), created_at: at,
      });
      const rows = [
        event("org", "r1", null), event("org", "r1", null), event("org", "r1", null),
        event("org", "r1", "COMPLETE"), event("org", "r2", null), event("other", "r1", null), event("other", "r1", null),
      ];
      const ids: number[] = [];
      for (const row of rows) ids.push(Number((await db.insertInto("lineage_events").values(row).returning("row_id").executeTakeFirstOrThrow()).row_id));
      for (const id of ids) {
        await db.insertInto("lineage_edges").values({ organization_id: "org", event_row_id: id, job_namespace: "dbt", job_name: "daily", dataset_namespace: "pg", dataset_name: `t${id}`, direction: "input" }).execute();
      }

      expect(await migrateToLatest(database)).toContain("0285_lineage_events_once");

      const kept = [ids[0], ids[3], ids[4], ids[5]];
      expect((await db.selectFrom("lineage_events").select("row_id").orderBy("row_id").execute()).map((r: any) => Number(r.row_id))).toEqual(kept);
      expect((await db.selectFrom("lineage_edges").select("event_row_id").orderBy("event_row_id").execute()).map((r: any) => Number(r.event_row_id))).toEqual(kept);

      const stored = await lineageRepository.insertEvents(database.db, [event("org", "r1", null), event("org", "r3", null), event("org", "r3", null)], [[], [], []]);
      expect(stored).toBe(1);
      await expect(db.insertInto("lineage_events").values(event("org", "r1", null)).execute()).rejects.toThrow(/unique/i);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
