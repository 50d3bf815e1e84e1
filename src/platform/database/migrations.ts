import { Kysely, Migrator, sql, type Migration, type MigrationProvider } from "kysely";
import type { Database, DialectName } from "./index.js";

/**
 * Versioned migrations, in code so the `steward` binary carries them. Names sort in the order
 * they apply; never edit one that has shipped, add a new one.
 */
function migrations(dialect: DialectName): Record<string, Migration> {
  // The log position must grow with every insert: AUTOINCREMENT on SQLite never reuses a value.
  const serial = dialect === "postgres" ? sql`bigserial primary key` : sql`integer primary key autoincrement`;
  return {
    "0001_foundation": {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable("organizations")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("name", "text", (c) => c.notNull().unique())
          .addColumn("created_at", "text", (c) => c.notNull())
          .execute();

        await db.schema
          .createTable("api_keys")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
          .addColumn("display_name", "text", (c) => c.notNull())
          .addColumn("scope", "text", (c) => c.notNull())
          .addColumn("team_id", "text")
          .addColumn("secret_hash", "text", (c) => c.notNull().unique())
          .addColumn("secret_hint", "text", (c) => c.notNull())
          .addColumn("expires_at_input", "text")
          .addColumn("expires_at", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("last_used_at", "text")
          .addColumn("revoked_at", "text")
          .execute();
        await db.schema.createIndex("api_keys_by_organization").on("api_keys").columns(["organization_id", "created_at"]).execute();

        await db.schema
          .createTable("resources")
          .addColumn("row_id", sql`${serial}`)
          .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("id", "text", (c) => c.notNull())
          .addColumn("title", "text")
          .addColumn("owner_team_id", "text")
          .addColumn("status", "text")
          .addColumn("search_text", "text", (c) => c.notNull())
          .addColumn("doc", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .addUniqueConstraint("resources_identity", ["organization_id", "kind", "id"])
          .execute();
        await db.schema
          .createIndex("resources_by_owner")
          .on("resources")
          .columns(["organization_id", "kind", "owner_team_id"])
          .execute();

        await db.schema
          .createTable("events")
          .addColumn("seq", sql`${serial}`)
          .addColumn("id", "text", (c) => c.notNull().unique())
          .addColumn("organization_id", "text", (c) => c.notNull())
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("subject", "text", (c) => c.notNull())
          .addColumn("time", "text", (c) => c.notNull())
          .addColumn("data", "text", (c) => c.notNull())
          .execute();
        // Every feed read is "this organization, after this position": one index range scan.
        await db.schema.createIndex("events_feed").on("events").columns(["organization_id", "seq"]).execute();
      },
    },
    "0002_access": {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable("accesses")
          .addColumn("row_id", sql`${serial}`)
          .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
          .addColumn("id", "text", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          // Whether the access was ever approved: a canceled request that never was is never active.
          .addColumn("granted", "integer", (c) => c.notNull())
          // The state consumers were last told through Activated/Deactivated events.
          .addColumn("active", "integer", (c) => c.notNull())
          .addColumn("start_at", "text")
          .addColumn("end_at", "text")
          .addColumn("provider_data_product_id", "text", (c) => c.notNull())
          .addColumn("provider_output_port_id", "text", (c) => c.notNull())
          .addColumn("provider_team_id", "text", (c) => c.notNull())
          .addColumn("consumer_type", "text", (c) => c.notNull())
          .addColumn("consumer_data_product_id", "text")
          .addColumn("consumer_team_id", "text")
          .addColumn("doc", "text", (c) => c.notNull())
          .addColumn("provisioning", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .addUniqueConstraint("accesses_identity", ["organization_id", "id"])
          .execute();
        await db.schema.createIndex("accesses_by_provider").on("accesses").columns(["organization_id", "provider_data_product_id", "provider_output_port_id"]).execute();
        await db.schema.createIndex("accesses_by_consumer").on("accesses").columns(["organization_id", "consumer_data_product_id"]).execute();
        // The scheduler's two questions: which granted accesses are due to start, which active ones to end.
        await db.schema.createIndex("accesses_due_start").on("accesses").columns(["active", "granted", "start_at"]).execute();
        await db.schema.createIndex("accesses_due_end").on("accesses").columns(["active", "end_at"]).execute();
      },
    },
    // People of the web app: accounts, their organizations, sessions and one-time setup links.
    "0003_people": {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable("users")
          .addColumn("id", "text", (c) => c.primaryKey())
          // Lower-cased: one account per address, whatever its spelling.
          .addColumn("email", "text", (c) => c.notNull().unique())
          .addColumn("password_hash", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createTable("memberships")
          .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
          .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("role", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addPrimaryKeyConstraint("memberships_pk", ["organization_id", "user_id"])
          .execute();
        await db.schema.createIndex("memberships_by_user").on("memberships").columns(["user_id"]).execute();
        await db.schema
          .createTable("sessions")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("token_hash", "text", (c) => c.notNull().unique())
          .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("organization_id", "text", (c) => c.references("organizations.id").onDelete("set null"))
          .addColumn("csrf_token", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("last_seen_at", "text", (c) => c.notNull())
          .addColumn("expires_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createTable("setup_tokens")
          .addColumn("token_hash", "text", (c) => c.primaryKey())
          .addColumn("organization_id", "text", (c) => c.notNull().references("organizations.id").onDelete("cascade"))
          // Absent for the first-start link, where the person chooses the address.
          .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
          .addColumn("role", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("expires_at", "text", (c) => c.notNull())
          .addColumn("used_at", "text")
          .execute();
      },
    },
    "0004_events_by_subject": {
      async up(db: Kysely<any>) {
        // A resource's history (GET /api/events/recent?subject=) without scanning the whole feed.
        await db.schema.createIndex("events_by_subject").on("events").columns(["organization_id", "subject", "seq"]).execute();
      },
    },
  };
}

export async function migrateToLatest(database: Database): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(database.dialect) };
  // The migrator takes a lock itself (an advisory lock on PostgreSQL), so concurrent starts are safe.
  // Kysely looks for its bookkeeping tables in every schema unless told which one; name the
  // connection's own, or another schema's tables would be taken for ours.
  const schema =
    database.dialect === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({ db: database.db, provider, migrationTableSchema: schema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
