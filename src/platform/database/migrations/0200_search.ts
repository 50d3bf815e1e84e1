import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/**
 * Full-text search over the catalog (`GET /api/search`, docs/product.md §14): a document's title and
 * its search text (id, description, and the names and descriptions inside it), indexed where the
 * write happens, so a search after a 200 finds what was written.
 * - SQLite: an FTS5 index whose content is the `resources` table itself, kept current by triggers
 *   in the writing transaction.
 * - PostgreSQL: a GIN index over the same text as a `simple` tsvector, which every write updates.
 */
export default upOnly(async (db, dialect) => {
  if (dialect === "postgres") {
    await sql`create index resources_search on resources using gin (to_tsvector('simple', coalesce(title, '') || ' ' || search_text))`.execute(db);
    return;
  }
  await sql`create virtual table resources_search using fts5(title, search_text, content='resources', content_rowid='row_id', tokenize='unicode61 remove_diacritics 2')`.execute(db);
  await sql`create trigger resources_search_insert after insert on resources begin
        insert into resources_search(rowid, title, search_text) values (new.row_id, new.title, new.search_text);
      end`.execute(db);
  await sql`create trigger resources_search_delete after delete on resources begin
        insert into resources_search(resources_search, rowid, title, search_text) values ('delete', old.row_id, old.title, old.search_text);
      end`.execute(db);
  await sql`create trigger resources_search_update after update of title, search_text on resources begin
        insert into resources_search(resources_search, rowid, title, search_text) values ('delete', old.row_id, old.title, old.search_text);
        insert into resources_search(rowid, title, search_text) values (new.row_id, new.title, new.search_text);
      end`.execute(db);
  await sql`insert into resources_search(resources_search) values ('rebuild')`.execute(db);
});
