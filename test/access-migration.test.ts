import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { accessRepository } from "../src/modules/access/repository.js";
import { present } from "../src/modules/access/documents.js";
import { createTestDatabase, DATABASES } from "./helpers/databases.js";

/** Accesses stored before info.status lost `canceled` (migration 0030) read back in the new representation. */
describe.each(DATABASES)("migrating stored accesses to the reference product's semantics (%s)", (kind) => {
  it("turns canceled accesses into approved ones with canceledAt, or rejected ones when never approved", async () => {
    const test = await createTestDatabase(kind);
    const database = openDatabase(test.url);
    try {
      await migrateToLatest(database, "0005_event_principal");
      const db = database.db as any;
      const at = "2026-01-01T00:00:00.000Z";
      await db.insertInto("organizations").values({ id: "org", name: "Org", created_at: at }).execute();
      const resource = (kind: string, id: string, owner: string) => ({
        organization_id: "org", kind, id, title: id, owner_team_id: owner, status: null, search_text: id, doc: JSON.stringify({ id }), created_at: at, updated_at: at,
      });
      await db.insertInto("resources").values([resource("team", "sales", "sales"), resource("team", "marketing", "marketing"), resource("dataproduct", "orders", "sales")]).execute();
      const access = (id: string, status: string, granted: number, end: string | null, updated: string) => ({
        organization_id: "org", id, status, granted, active: 0, start_at: null, end_at: end,
        provider_data_product_id: "orders", provider_output_port_id: "pg", provider_team_id: "sales",
        consumer_type: "team", consumer_data_product_id: null, consumer_team_id: "marketing",
        doc: JSON.stringify({ id, info: { purpose: "p", ...(end ? { endDate: end } : {}) }, provider: { dataProductId: "orders", outputPortId: "pg", teamId: "sales", dataContractId: "orders-v1" }, consumer: { teamId: "marketing" } }),
        provisioning: null, created_at: at, updated_at: updated,
      });
      await db.insertInto("accesses").values([
        access("was-approved", "canceled", 1, "2026-02-01T00:00:00.000Z", "2026-02-03T00:00:00.000Z"),
        access("was-requested", "canceled", 0, "2026-02-02T00:00:00.000Z", "2026-02-02T00:00:00.000Z"),
        access("still-requested", "requested", 0, null, at),
      ]).execute();
      await db.insertInto("events").values({
        id: "0190a0a0-0000-7000-8000-000000000001", organization_id: "org", kind: "AccessCanceledEvent", subject: "was-approved",
        time: "2026-02-01T00:00:00.000Z", data: "{}", principal: "system", comment: null,
      }).execute();

      await migrateToLatest(database);
      const read = async (id: string) => present((await accessRepository.get(database.db, "org", id))!);
      expect((await read("was-approved")).info).toEqual({ purpose: "p", endDate: "2026-02-01T00:00:00.000Z", status: "approved", active: false, canceledAt: "2026-02-01T00:00:00.000Z" });
      expect((await read("was-requested")).info).toMatchObject({ status: "rejected", active: false, canceledAt: "2026-02-02T00:00:00.000Z" });
      expect((await read("still-requested")).info).toEqual({ purpose: "p", status: "requested", active: false });
      const record = (await accessRepository.get(database.db, "org", "still-requested"))!;
      expect(record).toMatchObject({ providerTeamId: "sales", consumerTeamId: "marketing" });
      expect(record.providerProductRowId).not.toBeNull();
      // Canceled and past its end, or rejected, no longer hold the contract; the request does.
      expect(await accessRepository.countOpenForContract(database.db, "org", "orders-v1", "2026-03-01T00:00:00.000Z")).toBe(1);
      const statuses = await sql<{ status: string }>`select distinct status from accesses order by status`.execute(database.db);
      expect(statuses.rows.map((r) => r.status)).toEqual(["approved", "rejected", "requested"]);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
