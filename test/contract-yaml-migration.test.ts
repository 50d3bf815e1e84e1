import { describe, expect, it } from "vitest";
import { openDatabase } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { contractYamlRepository } from "../src/modules/datacontracts/yaml-repository.js";
import { createTestDatabase, DATABASES } from "./helpers/databases.js";

/** Contracts stored before migration 0150 have no YAML as written: they are read as generated YAML. */
describe.each(DATABASES)("the YAML text column of stored contracts (%s)", (kind) => {
  it("adds the column, empty for the rows already there, and keeps a text written afterwards", async () => {
    const test = await createTestDatabase(kind);
    const database = openDatabase(test.url);
    try {
      await migrateToLatest(database, "0120_access_port_ids");
      const db = database.db as any;
      const at = "2026-01-01T00:00:00.000Z";
      await db.insertInto("organizations").values({ id: "org", name: "Org", created_at: at }).execute();
      const doc = { id: "old", apiVersion: "v3.1.0", kind: "DataContract", version: "1.0.0", status: "active" };
      await db.insertInto("resources").values({ organization_id: "org", kind: "datacontract", id: "old", title: "old", owner_team_id: null, status: null, search_text: "old", doc: JSON.stringify(doc), created_at: at, updated_at: at }).execute();

      expect(await migrateToLatest(database)).toContain("0150_contract_yaml_text");
      expect(await contractYamlRepository.get(database.db, "org", "old")).toBeNull();
      await contractYamlRepository.set(database.db, "org", "old", "# kept\nid: old\n");
      expect(await contractYamlRepository.get(database.db, "org", "old")).toBe("# kept\nid: old\n");
      // Only that organization's contract of that id.
      expect(await contractYamlRepository.get(database.db, "another", "old")).toBeNull();
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
