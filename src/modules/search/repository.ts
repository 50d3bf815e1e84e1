import { sql } from "kysely";
import type { DialectName, Executor } from "../../platform/database/index.js";
import type { ResourceKind } from "../catalog/resource-repository.js";
import { hasTag } from "../catalog/document-tags.js";
import { afterPrefix, MAX_PREFIX_WORDS, postgresPrefixes, postgresQuery, sqliteMatch, usableWords } from "./terms.js";

export interface SearchFilter {
  terms: string[];
  kinds: readonly ResourceKind[];
  ownerTeamId?: string;
  tag?: string;
  offset: number;
  limit: number;
  /** The most matches ranked for the page; RANKED_MATCHES unless a test asks fewer. */
  ranked?: number;
}

export interface SearchRow {
  kind: ResourceKind;
  id: string;
  title: string | null;
  owner_team_id: string | null;
  description: string | null;
}

/** Where the formats keep a short description: DPS `info.description`, ODCS/ODPS `description.purpose`, or a plain `description`. */
const SQLITE_DESCRIPTION = sql<string | null>`coalesce(
  case when json_type(r.doc, '$.info.description') = 'text' then json_extract(r.doc, '$.info.description') end,
  case when json_type(r.doc, '$.description.purpose') = 'text' then json_extract(r.doc, '$.description.purpose') end,
  case when json_type(r.doc, '$.description') = 'text' then json_extract(r.doc, '$.description') end)`;
const POSTGRES_DESCRIPTION = sql<string | null>`coalesce(
  case when jsonb_typeof(r.doc::jsonb #> '{info,description}') = 'string' then r.doc::jsonb #>> '{info,description}' end,
  case when jsonb_typeof(r.doc::jsonb #> '{description,purpose}') = 'string' then r.doc::jsonb #>> '{description,purpose}' end,
  case when jsonb_typeof(r.doc::jsonb -> 'description') = 'string' then r.doc::jsonb ->> 'description' end)`;

/**
 * The most matches a search ranks (docs/product.md §14): a page is the best of the
 * organization's first RANKED_MATCHES documents that hold every term, in the order the index
 * yields them. Below it (nearly every search) every match is ranked; above it (a word thousands
 * of documents hold) ranking a page costs what it costs at RANKED_MATCHES, whatever the catalog's
 * size.
 */
export const RANKED_MATCHES = 500;

export const searchRepository = {
  /**
   * One page of an organization's documents that hold every term as a word prefix, best first
   * (title matches weigh more), then by kind and id so that equal ranks keep one order; out of
   * the first RANKED_MATCHES matches. Only the page's rows are read from `resources`.
   */
  async search(ex: Executor, dialect: DialectName, organizationId: string, filter: SearchFilter): Promise<SearchRow[]> {
    if (filter.terms.length === 0 || filter.kinds.length === 0) return [];
    const kinds = sql.join(filter.kinds.map((k) => sql`${k}`));
    const ranked = filter.ranked ?? RANKED_MATCHES;
    if (dialect === "postgres") {
      const words = new Map<string, string[]>();
      for (const prefix of postgresPrefixes(filter.terms)) {
        const found = await sql<{ word: string }>`select word from search_words where word >= ${prefix} and word < ${afterPrefix(prefix)}
          order by word limit ${MAX_PREFIX_WORDS + 1}`.execute(ex);
        const list = found.rows.map((r) => r.word);
        if (list.length === 0) return []; // no document holds a word that starts with it
        if (usableWords(list)) words.set(prefix, list);
      }
      const query = sql`to_tsquery('simple', ${postgresQuery(filter.terms, words)})`;
      const owner = filter.ownerTeamId === undefined ? sql`` : sql` and s.owner_team_id = ${filter.ownerTeamId}`;
      const tag = filter.tag === undefined ? sql`` : sql` and exists (select 1 from resources r where r.row_id = s.row_id and ${hasTag(dialect, filter.tag)})`;
      const result = await sql<SearchRow>`
        select r.kind, r.id, r.title, r.owner_team_id, ${POSTGRES_DESCRIPTION} as description
        from (
          select m.row_id, m.kind, m.id, 10 * ts_rank(m.title_words, ${query}) + ts_rank(m.words, ${query}) as score
          from (
            select s.row_id, s.kind, s.id, s.title_words, s.words from search_entries s
            where s.organization_id = ${organizationId} and s.kind in (${kinds})${owner}${tag} and s.words @@ ${query}
            limit ${ranked}) m
          order by score desc, m.kind, m.id
          limit ${filter.limit} offset ${filter.offset}) page
        join resources r on r.row_id = page.row_id
        order by page.score desc, page.kind, page.id`.execute(ex);
      return result.rows;
    }
    const owner = filter.ownerTeamId === undefined ? sql`` : sql` and r.owner_team_id = ${filter.ownerTeamId}`;
    const tag = filter.tag === undefined ? sql`` : sql` and ${hasTag(dialect, filter.tag)}`;
    const result = await sql<SearchRow>`
      select r.kind, r.id, r.title, r.owner_team_id, ${SQLITE_DESCRIPTION} as description
      from (
        select m.row_id, m.kind, m.id, m.score from (
          select s.rowid as row_id, r.kind, r.id, bm25(resources_search, 10.0, 1.0) as score
          from resources_search s join resources r on r.row_id = s.rowid
          where resources_search match ${sqliteMatch(filter.terms)}
            and r.organization_id = ${organizationId} and r.kind in (${kinds})${owner}${tag}
          limit ${ranked}) m
        order by m.score, m.kind, m.id
        limit ${filter.limit} offset ${filter.offset}) page
      join resources r on r.row_id = page.row_id
      order by page.score, page.kind, page.id`.execute(ex);
    return result.rows;
  },

  /** Names of the given teams of an organization. */
  async teamNames(ex: Executor, organizationId: string, teamIds: string[]): Promise<Map<string, string>> {
    if (teamIds.length === 0) return new Map();
    const rows = await ex
      .selectFrom("resources")
      .select(["id", "title"])
      .where("organization_id", "=", organizationId)
      .where("kind", "=", "team")
      .where("id", "in", teamIds)
      .execute();
    return new Map(rows.map((r) => [r.id, r.title ?? r.id]));
  },
};
