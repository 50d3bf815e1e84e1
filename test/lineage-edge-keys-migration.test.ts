import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { lineageRepository } from "../src/modules/lineage/repository.js";
import { createTestDatabase, DATABASES } from "./helpers/databases.js";

/**
 * Migration 0290 keeps each distinct job–dataset edge once, beside the edges of each event: the
 * edges stored before it are found by dataset and by job after it, each once.
 */
describe.each(DATABASES)("distinct lineage edges from the edges stored before (%s)", (kind) => {
  it("finds the edges stored before the migration by dataset and by job, each once", async () => {
    const test = await createTestDatabase(kind);
    const database = openDatabase(test.url);
    try {
      await migrateToLatest(database, "0285_lineage_events_once");
      const db = database.db as any;
      const at = "2026-01-01T00:00:00.000Z";
      await db.insertInto("organizations").values({ id: "org", name: "Org", created_at: at }).execute();
      const edge = { organization_id: "org", job_namespace: "dbt", job_name: "daily", dataset_namespace: "postgres://db:5432", dataset_name: "shop.public.orders", direction: "input" };
      for (const run of ["r1", "r2"]) {
        const event = { organization_id: "org", run_id: run, event_type: "COMPLETE", event_time: at, job_namespace: "dbt", job_name: "daily", data_product_id: null, output_port_name: null, team_id: null, doc: "{}", created_at: at };
        const id = Number((await db.insertInto("lineage_events").values(event).returning("row_id").executeTakeFirstOrThrow()).row_id);
        await db.insertInto("lineage_edges").values({ ...edge, event_row_id: id }).execute();
      }

      expect(await migrateToLatest(database)).toContain("0290_lineage_ingest_indexes");

      const { organization_id: _, ...expected } = edge;
      expect(await lineageRepository.edgesOfDatasets(database.db, "org", [{ namespace: "postgres://db:5432", name: "shop.public.orders" }], 10)).toEqual([expected]);
      expect(await lineageRepository.edgesOfJobs(database.db, "org", [{ namespace: "dbt", name: "daily" }], 10)).toEqual([expected]);
      expect(await lineageRepository.datasetsIn(database.db, "org", "postgres://db:5432", 10)).toEqual([{ namespace: "postgres://db:5432", name: "shop.public.orders" }]);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
