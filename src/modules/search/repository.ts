import { sql } from "kysely";
import type { DialectName, Executor } from "../../platform/database/index.js";
import type { ResourceKind } from "../catalog/resource-repository.js";
import { hasTag } from "../catalog/document-tags.js";
import { postgresQuery, sqliteMatch } from "./terms.js";

export interface SearchFilter {
  terms: string[];
  kinds: readonly ResourceKind[];
  ownerTeamId?: string;
  tag?: string;
  offset: number;
  limit: number;
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

export const searchRepository = {
  /**
   * One page of an organization's documents that hold every term as a word prefix, best first
   * (title matches weigh more), then by kind and id so that equal ranks keep one order.
   */
  async search(ex: Executor, dialect: DialectName, organizationId: string, filter: SearchFilter): Promise<SearchRow[]> {
    if (filter.terms.length === 0 || filter.kinds.length === 0) return [];
    const kinds = sql.join(filter.kinds.map((k) => sql`${k}`));
    const owner = filter.ownerTeamId === undefined ? sql`` : sql` and r.owner_team_id = ${filter.ownerTeamId}`;
    const tag = filter.tag === undefined ? sql`` : sql` and ${hasTag(dialect, filter.tag)}`;
    if (dialect === "postgres") {
      const query = postgresQuery(filter.terms);
      const result = await sql<SearchRow>`
        select r.kind, r.id, r.title, r.owner_team_id, ${POSTGRES_DESCRIPTION} as description
        from resources r
        where r.organization_id = ${organizationId} and r.kind in (${kinds})${owner}${tag}
          and to_tsvector('simple', coalesce(r.title, '') || ' ' || r.search_text) @@ to_tsquery('simple', ${query})
        order by 10 * ts_rank(to_tsvector('simple', coalesce(r.title, '')), to_tsquery('simple', ${query}))
          + ts_rank(to_tsvector('simple', coalesce(r.title, '') || ' ' || r.search_text), to_tsquery('simple', ${query})) desc,
          r.kind, r.id
        limit ${filter.limit} offset ${filter.offset}`.execute(ex);
      return result.rows;
    }
    const result = await sql<SearchRow>`
      select r.kind, r.id, r.title, r.owner_team_id, ${SQLITE_DESCRIPTION} as description
      from resources_search s join resources r on r.row_id = s.rowid
      where resources_search match ${sqliteMatch(filter.terms)}
        and r.organization_id = ${organizationId} and r.kind in (${kinds})${owner}${tag}
      order by bm25(resources_search, 10.0, 1.0), r.kind, r.id
      limit ${filter.limit} offset ${filter.offset}`.execute(ex);
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
