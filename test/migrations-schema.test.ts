import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { createTestDatabase, DATABASES, type DatabaseKind, type TestDatabase } from "./helpers/databases.js";

/**
 * The schema the migrations build, through the last one recorded here, is written down in
 * `test/fixtures/schema/<database>.txt`, so restructuring the code of a migration (which is frozen
 * history: what it builds must never change) is proved to leave every table, column, constraint and
 * index exactly as before. Migrations numbered after `RECORDED_THROUGH` are not part of the record;
 * to record them, move `RECORDED_THROUGH` and run this file with `-u`.
 */
const RECORDED_THROUGH = "0291_search_entries";

describe.each(DATABASES)("the schema built by the migrations (%s)", (kind) => {
  let test: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    database = openDatabase(test.url);
    await migrateToLatest(database, RECORDED_THROUGH);
  });

  afterAll(async () => {
    await database?.close();
    await test?.drop();
  });

  it("is the recorded one, to the column", async () => {
    await expect(await dumpSchema(database, kind)).toMatchFileSnapshot(`./fixtures/schema/${kind}.txt`);
  });
});

/** One line a table, column, constraint, index or trigger, sorted, whitespace collapsed. */
async function dumpSchema(database: Database, kind: DatabaseKind): Promise<string> {
  const lines = kind === "sqlite" ? await sqliteSchema(database) : await postgresSchema(database);
  return `${lines.map((line) => line.replace(/\s+/g, " ").trim()).join("\n")}\n`;
}

async function sqliteSchema(database: Database): Promise<string[]> {
  const { rows } = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where name not like 'kysely_%' order by type, name`.execute(database.db);
  return rows.map((row) => `${row.type} ${row.name}: ${row.sql ?? "(automatic)"}`);
}

async function postgresSchema(database: Database): Promise<string[]> {
  const db = database.db;
  const columns = await sql<{ line: string }>`
    select table_name || '.' || column_name || ' #' || ordinal_position || ' ' || data_type
      || case when is_nullable = 'NO' then ' not null' else '' end
      || coalesce(' default ' || column_default, '') as line
    from information_schema.columns
    where table_schema = current_schema() and table_name not like 'kysely_%'
    order by table_name, ordinal_position`.execute(db);
  const constraints = await sql<{ line: string }>`
    select 'constraint ' || rel.relname || '.' || con.conname || ': ' || pg_get_constraintdef(con.oid) as line
    from pg_constraint con
    join pg_class rel on rel.oid = con.conrelid
    join pg_namespace ns on ns.oid = rel.relnamespace
    where ns.nspname = current_schema() and rel.relname not like 'kysely_%'
    order by rel.relname, con.conname`.execute(db);
  const indexes = await sql<{ line: string }>`
    select 'index ' || tablename || '.' || indexname || ': ' || indexdef as line
    from pg_indexes
    where schemaname = current_schema() and tablename not like 'kysely_%'
    order by tablename, indexname`.execute(db);
  const triggers = await sql<{ line: string }>`
    select 'trigger ' || event_object_table || '.' || trigger_name || ' ' || event_manipulation || ': ' || action_statement as line
    from information_schema.triggers
    where trigger_schema = current_schema()
    order by event_object_table, trigger_name, event_manipulation`.execute(db);
  return [...columns.rows, ...constraints.rows, ...indexes.rows, ...triggers.rows].map((row) => row.line);
}
