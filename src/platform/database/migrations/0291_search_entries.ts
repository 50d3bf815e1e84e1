import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/**
 * PostgreSQL's search reads narrow rows of its own (docs/product.md §14): one per
 * document, with what a search filters by (organization, kind, owner team), the id that breaks
 * ties, and the title's and the whole text's `simple` tsvectors stored, the whole text's under a
 * GIN index. A trigger writes them in the transaction of the write to `resources`. Ranking a match
 * then reads a row of a few hundred bytes and computes no tsvector, where 0200's expression index
 * made it read the whole document and compute two. 0200's index is dropped; the rows are filled
 * from the documents there are.
 *
 * `search_words` holds every word the index has held, in byte order (collation "C"), so a search
 * turns a prefix into the words that start with it and asks the index for those: GIN answers a
 * prefix (`'zone7x':*`) by gathering its matches into a bitmap first, several times slower than
 * the same matches of exact words. Words no document holds any more stay, and match nothing.
 *
 * SQLite keeps 0200's FTS5 index: ranking by `bm25` reads no document there, and the columns an
 * FTS5 table could hold beside its index cost more to read, per match, than the document's row.
 */
export default upOnly(async (db, dialect) => {
  if (dialect !== "postgres") return;
  await sql`drop index resources_search`.execute(db);
  await sql`create table search_entries (
      row_id bigint primary key,
      organization_id text not null,
      kind text not null,
      id text not null,
      owner_team_id text,
      title_words tsvector not null,
      words tsvector not null)`.execute(db);
  await sql`create table search_words (word text collate "C" primary key)`.execute(db);
  await sql`create function search_entries_write() returns trigger language plpgsql as $$
    declare
      all_words tsvector;
    begin
      if tg_op = 'DELETE' then
        delete from search_entries where row_id = old.row_id;
        return null;
      end if;
      all_words := to_tsvector('simple', coalesce(new.title, '') || ' ' || new.search_text);
      insert into search_entries (row_id, organization_id, kind, id, owner_team_id, title_words, words)
        values (new.row_id, new.organization_id, new.kind, new.id, new.owner_team_id,
          to_tsvector('simple', coalesce(new.title, '')), all_words)
        on conflict (row_id) do update set owner_team_id = excluded.owner_team_id,
          title_words = excluded.title_words, words = excluded.words;
      -- In the tsvector's sorted order, so two writes that add the same new words wait, never deadlock.
      insert into search_words (word) select lexeme from unnest(all_words) on conflict do nothing;
      return null;
    end $$`.execute(db);
  await sql`create trigger search_entries_write after insert or delete or update of title, search_text, owner_team_id
      on resources for each row execute function search_entries_write()`.execute(db);
  await sql`insert into search_entries (row_id, organization_id, kind, id, owner_team_id, title_words, words)
      select row_id, organization_id, kind, id, owner_team_id, to_tsvector('simple', coalesce(title, '')),
        to_tsvector('simple', coalesce(title, '') || ' ' || search_text)
      from resources`.execute(db);
  await sql`create index search_entries_words on search_entries using gin (words)`.execute(db);
  await sql`insert into search_words (word) select distinct lexeme from search_entries, unnest(words)`.execute(db);
});
