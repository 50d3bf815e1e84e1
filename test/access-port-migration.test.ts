import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { accessRepository } from "../src/modules/access/repository.js";
import { present } from "../src/modules/access/documents.js";
import { createTestDatabase, DATABASES } from "./helpers/databases.js";

/** Accesses stored while they held an ODPS port by its bare name (before migration 0120). */
describe.each(DATABASES)("migrating accesses to the ids of the ports they hold (%s)", (kind) => {
  it("binds a bare ODPS name to the one port it names, and leaves ids and ambiguous names alone", async () => {
    const test = await createTestDatabase(kind);
    const database = openDatabase(test.url);
    try {
      await migrateToLatest(database, "0110_lists_in_order");
      const db = database.db as any;
      const at = "2026-01-01T00:00:00.000Z";
      await db.insertInto("organizations").values({ id: "org", name: "Org", created_at: at }).execute();
      const product = (id: string, doc: Record<string, unknown>) => ({
        organization_id: "org", kind: "dataproduct", id, title: id, owner_team_id: "sales", status: null, domain: null, archetype: null,
        search_text: id, doc: JSON.stringify({ id, ...doc }), created_at: at, updated_at: at,
      });
      const odps = (versions: string[]) => ({ apiVersion: "v1.0.0", kind: "DataProduct", status: "active", team: { name: "sales" }, outputPorts: versions.map((version) => ({ name: "events", version })) });
      await db.insertInto("resources").values([
        product("one-version", odps(["1.0.0"])),
        product("two-versions", odps(["1.0.0", "2.0.0"])),
        product("dps", { dataProductSpecification: "0.0.1", info: { title: "DPS", owner: "sales" }, outputPorts: [{ id: "pg" }] }),
      ]).execute();
      const access = (id: string, productId: string, port: string) => ({
        organization_id: "org", id, status: "approved", canceled_at: null, active: 1, start_at: null, end_at: null,
        provider_data_product_id: productId, provider_output_port_id: port, provider_team_id: "sales", provider_product_row_id: null,
        provider_data_contract_id: null, consumer_type: "team", consumer_data_product_id: null, consumer_team_id: "marketing", consumer_row_id: null,
        doc: JSON.stringify({ id, info: { purpose: "p" }, provider: { dataProductId: productId, outputPortId: port }, consumer: { teamId: "marketing" } }),
        provisioning: null, created_at: at, updated_at: at,
      });
      await db.insertInto("accesses").values([
        access("bare", "one-version", "events"),
        access("full", "one-version", "events@1.0.0"),
        access("ambiguous", "two-versions", "events"),
        access("dps", "dps", "pg"),
      ]).execute();

      await migrateToLatest(database);
      const held = async (id: string) => (await accessRepository.get(database.db, "org", id))!;
      expect((await held("bare")).providerOutputPortId).toBe("events@1.0.0");
      expect(present(await held("bare")).provider.outputPortId).toBe("events");
      expect((await held("full")).providerOutputPortId).toBe("events@1.0.0");
      expect((await held("ambiguous")).providerOutputPortId).toBe("events");
      expect((await held("dps")).providerOutputPortId).toBe("pg");
      const open = await accessRepository.openForProduct(database.db, "org", "one-version", "2026-02-01T00:00:00.000Z", ["events@1.0.0"]);
      expect(open).toEqual({ count: 2, portIds: ["events@1.0.0"] });
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
