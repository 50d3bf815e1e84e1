import { openDatabase, type Database } from "../../src/platform/database/index.js";
import { migrateToLatest } from "../../src/platform/database/migrations/index.js";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "./databases.js";
import { perSuite } from "./per-suite.js";

/** A fresh database of `kind` with every migration applied, for the tests of one `describe` (test/helpers/per-suite.ts). */
export function suiteDatabase(kind: DatabaseKind): Database {
  let test: TestDatabase | undefined;
  return perSuite(
    async () => {
      test = await createTestDatabase(kind);
      const database = openDatabase(test.url);
      await migrateToLatest(database);
      return database;
    },
    async (database) => {
      await database.close();
      await test?.drop();
    },
  );
}
