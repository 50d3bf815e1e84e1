import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/**
 * SQLite: a counter of changes to what a key may do, kept by triggers on `api_keys` — the same
 * columns as PostgreSQL's announcement (0090), and deletion, cascades from a deleted organization
 * included — whoever wrote them: the API, another process, an operator's SQL. Processes compare it
 * on every request and forget the keys they remember when it moved (key-cache.ts), so writes of
 * anything else (documents, events, `last_used_at`) no longer flush every cache.
 *
 * A rebuild of `api_keys` (create, copy, drop, rename) drops these triggers with the old table:
 * it must create them again, or revocations stop reaching remembered keys. The revocation tests in
 * key-cache.test.ts fail when they are missing.
 */
export default upOnly(async (db, dialect) => {
  if (dialect !== "sqlite") return;
  await db.schema.createTable("api_key_changes").addColumn("generation", "integer", (c) => c.notNull()).execute();
  await db.insertInto("api_key_changes").values({ generation: 0 }).execute();
  await sql`
        create trigger api_keys_changed after update of revoked_at, expires_at, scope, team_id, organization_id, secret_hash on api_keys
        begin update api_key_changes set generation = generation + 1; end`.execute(db);
  await sql`
        create trigger api_keys_deleted after delete on api_keys
        begin update api_key_changes set generation = generation + 1; end`.execute(db);
});
