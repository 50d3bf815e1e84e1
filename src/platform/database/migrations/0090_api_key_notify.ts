import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/**
 * PostgreSQL: every change to what a key may do (revoked, expiry, scope, team, deleted) is
 * announced on the `steward_api_keys` channel, by whatever wrote it — the API or an operator's SQL —
 * so every Steward process forgets the keys it remembers (src/modules/api-keys/key-lease.ts).
 * `last_used_at` is not among the columns: recording use must not flush every cache. SQLite
 * needs nothing: its caches compare the database's write stamp on every use.
 */
export default upOnly(async (db, dialect) => {
  if (dialect !== "postgres") return;
  await sql`
        create function steward_api_keys_changed() returns trigger language plpgsql as $$
        begin
          perform pg_notify('steward_api_keys', coalesce(old.id, new.id));
          return null;
        end $$`.execute(db);
  await sql`
        create trigger api_keys_changed
        after update of revoked_at, expires_at, scope, team_id, organization_id, secret_hash or delete on api_keys
        for each row execute function steward_api_keys_changed()`.execute(db);
});
