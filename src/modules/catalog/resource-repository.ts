import { sql, type Selectable } from "kysely";
import type { DialectName, Executor } from "../../platform/database/index.js";
import type { ResourcesTable } from "../../platform/database/tables.js";
import { containsText } from "../../platform/database/like.js";
import { WRITE_LATER } from "../../platform/database/drivers/pg-write-behind.js";
import { chunked } from "../../platform/database/chunks.js";
import { inOrderIndex } from "../../platform/database/in-order-index.js";
import { inRowIdOrder, withinByteBudget } from "../../platform/database/byte-budget.js";
import { hasMemberEmail } from "./member-email.js";
import { hasTag } from "./document-tags.js";

/** Catalog documents kept in the shared `resources` table. */
export type ResourceKind = "team" | "dataproduct" | "datacontract" | "connector" | "asset" | "sourcesystem" | "definition" | "tag" | "policy" | "classificationscheme" | "certification";

export interface StoredResource<D = Record<string, unknown>> {
  id: string;
  /** The document, parsed from `json` when first read. */
  readonly doc: D;
  /**
   * The document's JSON text as stored (`JSON.stringify` of what was written). Answers and ETags
   * use it as it is: a big document is then neither parsed nor serialized again to be read.
   */
  json: string;
  ownerTeamId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ResourceColumns {
  title: string | null;
  ownerTeamId: string | null;
  status: string | null;
  /** Business domain and archetype, for the kinds whose documents name them. */
  domain?: string | null;
  archetype?: string | null;
  searchText: string;
  /** The document as JSON text, stringified once by the caller, which also derives its ETag from it. */
  json: string;
}

export interface ListFilter {
  q?: string;
  /** Owned by this team, or by any of these. */
  ownerTeamId?: string | readonly string[];
  /** Owned by a team of this name (exactly), or of this id. */
  ownerTeamNameOrId?: string;
  status?: string;
  /** In any of these business domains. */
  domain?: readonly string[];
  archetype?: string;
  /** Teams only: a direct member has this email address (any letter case). */
  memberEmail?: string;
  /** The document's top-level `tags` hold exactly this tag. */
  tag?: string;
  /** `title`: by title (letter case ignored), then creation; creation order when absent. */
  sort?: "title";
  offset: number;
  limit: number;
}

/**
 * A document as read, parsed only when `doc` is first read. A class with the getter on its
 * prototype, not an object literal with a getter of its own: V8 (Node 20) makes such a literal in
 * dictionary mode, and every one of them, with its row, its text and its parsed document, outlived
 * the next two scavenges and was moved into the old generation as garbage. That was about 530 bytes
 * per document read (bench/HISTORY.md, "Garbage promoted by three patterns").
 */
export class StoredDocument<D> implements StoredResource<D> {
  #parsed: D | undefined;
  readonly id: string;
  readonly json: string;
  readonly ownerTeamId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;

  constructor(row: Pick<Selectable<ResourcesTable>, "id" | "doc" | "owner_team_id" | "created_at" | "updated_at">) {
    this.id = row.id;
    this.json = row.doc;
    this.ownerTeamId = row.owner_team_id;
    this.createdAt = row.created_at;
    this.updatedAt = row.updated_at;
  }

  get doc(): D {
    return (this.#parsed ??= JSON.parse(this.json) as D);
  }
}

/**
 * Title order that is the same on both databases: PostgreSQL would otherwise compare by the
 * server's locale, SQLite by bytes.
 */
function byTitle(dialect: DialectName) {
  return dialect === "postgres" ? sql`lower(title) collate "C"` : sql`lower(title)`;
}

const COLUMNS = ["row_id", "id", "doc", "owner_team_id", "created_at", "updated_at"] as const;

/*
 * The read, insert and update of one document are the statements of nearly every catalog request,
 * and are written as `sql` templates rather than with the query builder. The builder allocates and
 * freezes a tree of nodes and compiles it anew on every call: in the server about 20 µs a
 * statement, more than SQLite takes to run one (bench/HISTORY.md, "Statements as templates"). A
 * template's text is the same on both databases: identifiers are quoted, every value is a parameter.
 */
export type StoredRow = Pick<Selectable<ResourcesTable>, (typeof COLUMNS)[number]>;
const SELECTED = sql.raw(COLUMNS.map((column) => `"${column}"`).join(", "));
const FOR_UPDATE = sql.raw(" for update");
const UNLOCKED = sql.raw("");

async function selectOne(ex: Executor, organizationId: string, kind: ResourceKind, id: string, lock: typeof FOR_UPDATE): Promise<StoredRow[]> {
  const { rows } = await sql<StoredRow>`select ${SELECTED} from "resources"
    where "organization_id" = ${organizationId} and "kind" = ${kind} and "id" = ${id}${lock}`.execute(ex);
  return rows;
}

/** All SQL over catalog documents; every query is bounded to one organization and one kind. */
export const resourceRepository = {
  /**
   * One document. Inside a write transaction pass `{ lock: dialect }`: on PostgreSQL the row is
   * then locked until commit (SQLite has one writer and needs no lock).
   */
  async get<D>(
    ex: Executor,
    organizationId: string,
    kind: ResourceKind,
    id: string,
    options: { lock?: DialectName } = {},
  ): Promise<StoredResource<D> | undefined> {
    const rows = await selectOne(ex, organizationId, kind, id, options.lock === "postgres" ? FOR_UPDATE : UNLOCKED);
    return rows.length > 0 ? new StoredDocument<D>(rows[0]) : undefined;
  },

  /**
   * The rows of the documents among `ids` (distinct) that exist, in no particular order. The ids
   * travel as one parameter, so the statement's text is the same however many there are; callers
   * keep the list short (`DocumentReads`). Each id is looked up as `get` looks up one, through all
   * three columns of the identity index. On PostgreSQL that takes a lookup per id written out:
   * asked for `"id" = any(…)` on a table not yet analyzed (a fresh installation, or a large
   * synchronization's first minutes), it searched the index by organization and kind alone and
   * filtered every document of the kind by id. `limit 1` keeps the planner from folding the
   * lookup back into a join it may plan the same way.
   */
  async getMany(ex: Executor, dialect: DialectName, organizationId: string, kind: ResourceKind, ids: readonly string[]): Promise<StoredRow[]> {
    // One id, the common case under light load, is `get`'s own statement: PostgreSQL plans it for less.
    if (ids.length === 1) return selectOne(ex, organizationId, kind, ids[0], UNLOCKED);
    const { rows } =
      dialect === "postgres"
        ? await sql<StoredRow>`select "found".* from unnest(${ids}::text[]) as "wanted" ("id") cross join lateral (
            select ${SELECTED} from "resources"
            where "organization_id" = ${organizationId} and "kind" = ${kind} and "resources"."id" = "wanted"."id" limit 1) as "found"`.execute(ex)
        : await sql<StoredRow>`select ${SELECTED} from "resources"
            where "organization_id" = ${organizationId} and "kind" = ${kind} and "id" in (select "value" from json_each(${JSON.stringify(ids)}))`.execute(ex);
    return rows;
  },

  /**
   * One page of documents in creation order: at most `filter.limit`, and no more than `maxBytes`
   * of documents (but at least one). Sizes are read first, so documents past the budget are never
   * loaded. `cut` says the budget ended the page while more documents follow.
   */
  async list<D>(
    ex: Executor,
    organizationId: string,
    kind: ResourceKind,
    filter: ListFilter,
    maxBytes = Number.POSITIVE_INFINITY,
    dialect: DialectName = "sqlite",
  ): Promise<{ rows: StoredResource<D>[]; cut: boolean }> {
    const sizes = await ex
      .selectFrom("resources")
      .select(["row_id", sql<number | string>`octet_length(doc)`.as("bytes")])
      .where("organization_id", "=", organizationId)
      .where("kind", "=", kind)
      .$if(filter.ownerTeamId !== undefined, (qb) => qb.where("owner_team_id", "in", ([] as string[]).concat(filter.ownerTeamId!)))
      .$if(filter.ownerTeamNameOrId !== undefined, (qb) =>
        qb.where("owner_team_id", "in", (eb) =>
          eb
            .selectFrom("resources as team")
            .select("team.id")
            .where("team.organization_id", "=", organizationId)
            .where("team.kind", "=", "team")
            .where((t) => t.or([t("team.id", "=", filter.ownerTeamNameOrId!), t("team.title", "=", filter.ownerTeamNameOrId!)])),
        ),
      )
      .$if(filter.status !== undefined, (qb) => qb.where("status", "=", filter.status!))
      .$if(filter.domain !== undefined, (qb) => qb.where("domain", "in", [...filter.domain!]))
      .$if(filter.archetype !== undefined, (qb) => qb.where("archetype", "=", filter.archetype!))
      .$if(filter.q !== undefined, (qb) => qb.where(containsText(sql.ref("search_text"), filter.q!.toLowerCase())))
      .$if(filter.memberEmail !== undefined, (qb) => qb.where(hasMemberEmail(dialect, filter.memberEmail!)))
      .$if(filter.tag !== undefined, (qb) => qb.where(hasTag(dialect, filter.tag!)))
      .$if(filter.sort === "title", (qb) => qb.orderBy(sql`title is null`).orderBy(byTitle(dialect)))
      // A filter with an index of its own narrows the rows first; otherwise the page is read in order.
      .$if(
        filter.ownerTeamId === undefined && filter.ownerTeamNameOrId === undefined && filter.domain === undefined && filter.archetype === undefined,
        (qb) => qb.where(inOrderIndex("row_id")),
      )
      .orderBy("row_id")
      .offset(filter.offset)
      .limit(filter.limit)
      .execute();
    const { rowIds: wanted, cut } = withinByteBudget(sizes, maxBytes);
    if (wanted.length === 0) return { rows: [], cut: false };
    // By row id alone: a row id names one row for good (never reused), and these came from the
    // organization's documents of this kind just above. With the organization and kind stated too,
    // the databases walked all those documents in an index that starts with them, checking each
    // one's row id against the list (8 ms a page for 100,000 assets on SQLite).
    const rows = await ex.selectFrom("resources").select(COLUMNS).where("row_id", "in", wanted).execute();
    inRowIdOrder(rows, wanted);
    return { rows: rows.map((r) => new StoredDocument<D>(r)), cut };
  },

  async insert(ex: Executor, organizationId: string, kind: ResourceKind, id: string, columns: ResourceColumns, at: string): Promise<void> {
    const c = stored(columns);
    await sql`insert into "resources" ("organization_id", "kind", "id", "title", "owner_team_id", "status",
      "domain", "archetype", "search_text", "doc", "created_at", "updated_at")
      values (${organizationId}, ${kind}, ${id}, ${c.title}, ${c.ownerTeamId}, ${c.status}, ${c.domain}, ${c.archetype},
        ${c.searchText}, ${c.json}, ${at}, ${at}) ${WRITE_LATER}`.execute(ex);
  },

  async update(ex: Executor, organizationId: string, kind: ResourceKind, id: string, columns: ResourceColumns, at: string): Promise<void> {
    const c = stored(columns);
    await sql`update "resources" set "title" = ${c.title}, "owner_team_id" = ${c.ownerTeamId}, "status" = ${c.status},
      "domain" = ${c.domain}, "archetype" = ${c.archetype}, "search_text" = ${c.searchText},
      "doc" = ${c.json}, "updated_at" = ${at}
      where "organization_id" = ${organizationId} and "kind" = ${kind} and "id" = ${id} ${WRITE_LATER}`.execute(ex);
  },

  async delete(ex: Executor, organizationId: string, kind: ResourceKind, id: string): Promise<boolean> {
    const result = await ex
      .deleteFrom("resources")
      .where("organization_id", "=", organizationId)
      .where("kind", "=", kind)
      .where("id", "=", id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  /** The id of another document of this kind whose id differs from `id` only in letter case. */
  async findOtherCasing(ex: Executor, organizationId: string, kind: ResourceKind, id: string): Promise<string | undefined> {
    const row = await ex
      .selectFrom("resources")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where("kind", "=", kind)
      .where(sql<boolean>`lower(id) = ${id.toLowerCase()}`)
      .where("id", "<>", id)
      .executeTakeFirst();
    return row?.id;
  },
  /** The `row_id` of a document: which incarnation of that id a reference to it (an access's) names. */
  async rowId(ex: Executor, organizationId: string, kind: ResourceKind, id: string): Promise<number | undefined> {
    const { rows } = await sql<{ row_id: number }>`select "row_id" from "resources"
      where "organization_id" = ${organizationId} and "kind" = ${kind} and "id" = ${id}`.execute(ex);
    return rows[0]?.row_id;
  },

  /** Which of `ids` exist as documents of `kind`. */
  async existingIds(ex: Executor, organizationId: string, kind: ResourceKind, ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const slice of chunked(ids)) {
      const rows = await ex
        .selectFrom("resources")
        .select("id")
        .where("organization_id", "=", organizationId)
        .where("kind", "=", kind)
        .where("id", "in", slice)
        .execute();
      for (const row of rows) found.add(row.id);
    }
    return found;
  },

  /** Documents of `kind` whose stored JSON contains `text` (a cheap pre-filter; callers check the documents). */
  async listMentioning<D>(ex: Executor, organizationId: string, kind: ResourceKind, text: string): Promise<StoredResource<D>[]> {
    const rows = await ex
      .selectFrom("resources")
      .select(COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("kind", "=", kind)
      .where(containsText(sql.ref("doc"), text))
      .orderBy("row_id")
      .execute();
    return rows.map((r) => new StoredDocument<D>(r));
  },

  /** How many documents of the given kinds a team owns. */
  async countOwnedBy(ex: Executor, organizationId: string, kinds: ResourceKind[], teamId: string): Promise<number> {
    const row = await ex
      .selectFrom("resources")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("organization_id", "=", organizationId)
      .where("kind", "in", kinds)
      .where("owner_team_id", "=", teamId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};

/** Derived columns are plain text; PostgreSQL refuses NUL in text, and documents may contain it. */
function storable(text: string | null): string | null {
  return text === null ? null : text.replace(/\u0000/g, "");
}

/** The values a document's columns are stored as, for its insert and its update alike. */
function stored(columns: ResourceColumns) {
  return {
    title: storable(columns.title),
    ownerTeamId: storable(columns.ownerTeamId),
    status: storable(columns.status),
    domain: storable(columns.domain ?? null),
    archetype: storable(columns.archetype ?? null),
    searchText: storable(columns.searchText) ?? "",
    json: columns.json,
  };
}
