import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { resourceRepository, type ListFilter } from "../src/modules/catalog/resource-repository.js";
import { createTestDatabase, DATABASES } from "./helpers/databases.js";

/**
 * Documents stored before migration 0080 had no domain or archetype columns: the migration reads
 * them again through the format code, so the new filters find old documents too.
 */
describe.each(DATABASES)("backfilling domain and archetype of stored documents (%s)", (kind) => {
  it("fills the columns from every format, in batches, and leaves other kinds alone", async () => {
    const test = await createTestDatabase(kind);
    const database = openDatabase(test.url);
    try {
      await migrateToLatest(database, "0070_contract_versions");
      const db = database.db as any;
      const at = "2026-01-01T00:00:00.000Z";
      await db.insertInto("organizations").values({ id: "org", name: "Org", created_at: at }).execute();
      const row = (rowKind: string, doc: { id: string } & Record<string, unknown>, owner: string | null = "sales") => ({
        organization_id: "org", kind: rowKind, id: doc.id, title: doc.id, owner_team_id: owner, status: null, search_text: doc.id,
        doc: JSON.stringify(doc), created_at: at, updated_at: at,
      });
      await db.insertInto("resources").values([
        // A team whose document happens to have members named like the facts: not a product or contract.
        row("team", { id: "sales", name: "Sales", domain: "commerce", info: { archetype: "aggregate" } }),
        row("dataproduct", { id: "dps-orders", dataProductSpecification: "0.0.1", info: { title: "Orders", owner: "sales", archetype: "source-aligned", domain: "commerce" } }),
        row("dataproduct", { id: "odps-shelf", apiVersion: "v1.0.0", kind: "DataProduct", status: "active", domain: "operations", customProperties: [{ property: "type", value: "consumer-aligned" }] }),
        row("dataproduct", { id: "odps-stock", apiVersion: "v1.0.0", kind: "DataProduct", status: "active", domain: "operations", customProperties: [{ property: "archetype", value: "source-aligned" }] }),
        row("dataproduct", { id: "dps-plain", info: { title: "Plain", owner: "sales" } }),
        row("datacontract", { id: "odcs-orders", apiVersion: "v3.1.0", kind: "DataContract", version: "1.0.0", status: "active", domain: "commerce" }),
        row("datacontract", { id: "dcs-leads", dataContractSpecification: "1.1.0", info: { title: "Leads", version: "1", owner: "sales", domain: "commerce" }, models: {} }),
        row("datacontract", { id: "dcs09-apples", dataContractSpecification: "0.9.3", info: { title: "Apples", version: "1", owner: "sales", domain: "operations\u0000" }, schema: { type: "custom", specification: "x" } }),
        row("datacontract", { id: "odcs-plain", apiVersion: "v3.1.0", kind: "DataContract", version: "1.0.0", status: "active" }),
      ]).execute();
      // More than one batch of documents after them, so the backfill has to page through.
      const many = Array.from({ length: 1100 }, (_, i) => row("dataproduct", { id: `bulk-${i}`, info: { title: `Bulk ${i}`, owner: "sales", archetype: i % 2 === 0 ? "aggregate" : "source-aligned" } }));
      for (let i = 0; i < many.length; i += 250) await db.insertInto("resources").values(many.slice(i, i + 250)).execute();

      expect(await migrateToLatest(database)).toContain("0080_domain_archetype");

      const ids = async (rowKind: "dataproduct" | "datacontract", filter: Omit<ListFilter, "offset" | "limit">) =>
        (await resourceRepository.list(database.db, "org", rowKind, { ...filter, offset: 0, limit: 5000 }, undefined, database.dialect)).rows.map((r) => r.id);
      expect(await ids("dataproduct", { domain: ["commerce"] })).toEqual(["dps-orders"]);
      expect(await ids("dataproduct", { domain: ["operations"] })).toEqual(["odps-shelf", "odps-stock"]);
      expect(await ids("dataproduct", { archetype: "consumer-aligned" })).toEqual(["odps-shelf"]);
      const sourceAligned = await ids("dataproduct", { archetype: "source-aligned" });
      expect(sourceAligned.slice(0, 2)).toEqual(["dps-orders", "odps-stock"]);
      expect(sourceAligned).toHaveLength(2 + 550);
      expect(sourceAligned.at(-1)).toBe("bulk-1099");
      expect(await ids("dataproduct", { archetype: "aggregate" })).toHaveLength(550);
      expect(await ids("datacontract", { domain: ["commerce"] })).toEqual(["odcs-orders", "dcs-leads"]);
      // PostgreSQL text cannot hold NUL: it is dropped on both databases, as on every write.
      expect(await ids("datacontract", { domain: ["operations"] })).toEqual(["dcs09-apples"]);

      const columns = await db.selectFrom("resources").select(["id", "domain", "archetype"]).where("id", "in", ["sales", "dps-plain", "odcs-plain"]).orderBy("id").execute();
      expect(columns).toEqual([
        { id: "dps-plain", domain: null, archetype: null },
        { id: "odcs-plain", domain: null, archetype: null },
        { id: "sales", domain: null, archetype: null },
      ]);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
