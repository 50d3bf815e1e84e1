import { sql, type ExpressionBuilder, type Insertable } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import { chunked } from "../../platform/database/chunks.js";
import { inOrderIndex } from "../../platform/database/in-order-index.js";
import { loadWithinBudget } from "../../platform/database/byte-budget.js";
import { deleteMadeBefore, insertNew } from "../../platform/database/bulk.js";
import { postedByTeams, violationRepository } from "./read-records-repository.js";
import type { DB, LineageEdgesTable, LineageEventsTable, LineageViolationsTable } from "../../platform/database/tables.js";

export type NewLineageEvent = Omit<Insertable<LineageEventsTable>, "row_id">;
export type NewLineageEdge = Omit<Insertable<LineageEdgesTable>, "row_id" | "event_row_id">;
export type LineageViolationRow = Insertable<LineageViolationsTable>;

export interface LineageEventFilter {
  jobNamespace?: string;
  jobName?: string;
  runId?: string;
  eventType?: string;
  dataProductId?: string;
}

export interface LineageDeleteFilter {
  runId?: string;
  jobNamespace?: string;
  jobName?: string;
  /** Only events posted by principals of these teams (a team principal deletes only its own). */
  teamIds?: readonly string[];
}

/** One distinct job–dataset edge. */
export interface EdgeRow {
  job_namespace: string;
  job_name: string;
  dataset_namespace: string;
  dataset_name: string;
  direction: "input" | "output";
}

/** A data product's catalog row as the lineage mapping reads it. */
export interface ProductRow {
  id: string;
  owner_team_id: string | null;
  doc: string;
}

/** An active access to a port, with its consumer. */
export interface ActiveAccessRow {
  provider_data_product_id: string;
  provider_output_port_id: string;
  consumer_type: string;
  consumer_data_product_id: string | null;
  consumer_team_id: string | null;
}

/** The unique key of a stored event: the same event sent again is kept once. */
const EVENT_KEY = ["organization_id", "run_id", "job_namespace", "job_name", "event_type", "event_time"] as const;
/**
 * The key as its unique index holds it (migration 0285): a missing type is the empty text there, so
 * an event without one, sent again, meets the first copy (a null would not).
 */
const EVENT_KEY_INDEX = sql`organization_id, run_id, job_namespace, job_name, (coalesce(event_type, '')), event_time`;

const EDGE_COLUMNS = ["job_namespace", "job_name", "dataset_namespace", "dataset_name", "direction"] as const;
/** The unique key of a distinct edge (migration 0290): by dataset first, as the graph looks edges up. */
const EDGE_KEY = ["organization_id", "dataset_namespace", "dataset_name", "job_namespace", "job_name", "direction"] as const;

/**
 * Whether a distinct edge (`ek`) is still carried by a stored event: an event of its job with that
 * edge, found through the job's events and their edges. An event deleted since leaves its
 * distinct edges behind until the retention sweep; a read never answers them.
 */
function carried(eb: ExpressionBuilder<DB & { ek: DB["lineage_edge_keys"] }, "ek">) {
  return eb.exists(
    eb
      .selectFrom("lineage_events as ev")
      .crossJoin("lineage_edges as e")
      .select(sql<number>`1`.as("one"))
      .whereRef("ev.organization_id", "=", "ek.organization_id")
      .whereRef("ev.job_namespace", "=", "ek.job_namespace")
      .whereRef("ev.job_name", "=", "ek.job_name")
      .whereRef("e.event_row_id", "=", "ev.row_id")
      .whereRef("e.dataset_namespace", "=", "ek.dataset_namespace")
      .whereRef("e.dataset_name", "=", "ek.dataset_name")
      .whereRef("e.direction", "=", "ek.direction"),
  );
}

/** Removes up to `limit` distinct edges, of any organization, that no stored event carries any more; answers how many. */
async function removeUncarriedKeys(ex: Executor, limit: number): Promise<number> {
  const gone = ex
    .selectFrom("lineage_edge_keys as ek")
    .select(EDGE_KEY.map((c) => `ek.${c}` as const))
    .where((eb) => eb.not(carried(eb)))
    .limit(limit);
  const result = await ex
    .deleteFrom("lineage_edge_keys")
    .where(sql`(${sql.join(EDGE_KEY.map((c) => sql.ref(c)))})`, "in", gone)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** All SQL over lineage: run events, their edges and the reads without an agreement, per organization. */
export const lineageRepository = {
  /**
   * Stores events with their edges in a few statements, each event once: one already stored (same
   * run, job, type and time), or earlier in `events`, is skipped with its edges. Answers how many were stored.
   */
  async insertEvents(ex: Executor, events: readonly NewLineageEvent[], edges: ReadonlyArray<readonly NewLineageEdge[]>): Promise<number> {
    // Eleven values an event and seven an edge: slices stay far below either database's parameter limit.
    const stored = await insertNew(ex, "lineage_events", EVENT_KEY, events, 1000, ["row_id"], EVENT_KEY_INDEX);
    const newEdges = stored.flatMap((row, i) => (row === undefined ? [] : edges[i]!.map((e) => ({ ...e, event_row_id: Number(row.row_id) }))));
    for (const slice of chunked(newEdges, 4000)) await ex.insertInto("lineage_edges").values(slice).execute();
    // Each distinct edge once: one seen before is only looked up, and writes nothing.
    const keys = new Map<string, NewLineageEdge>();
    for (const e of newEdges) keys.set(JSON.stringify([e.organization_id, ...EDGE_COLUMNS.map((c) => e[c])]), e);
    for (const slice of chunked([...keys.values()], 4000)) {
      await ex
        .insertInto("lineage_edge_keys")
        .values(slice.map((e) => ({ organization_id: e.organization_id, dataset_namespace: e.dataset_namespace, dataset_name: e.dataset_name, job_namespace: e.job_namespace, job_name: e.job_name, direction: e.direction })))
        .onConflict((oc) => oc.columns(EDGE_KEY).doNothing())
        .execute();
    }
    return stored.filter((row) => row !== undefined).length;
  },

  /**
   * Removes up to `limit` events of any organization stored before `before` (the periodic sweep);
   * their edges go with them. The sweep's last call (fewer than `limit` left) also removes the
   * distinct edges no stored event carries any more.
   */
  async deleteAnyStoredBefore(ex: Executor, before: string, limit: number): Promise<number> {
    const removed = await deleteMadeBefore(ex, "lineage_events", before, limit, "row_id");
    if (removed < limit) while ((await removeUncarriedKeys(ex, limit)) === limit);
    return removed;
  },

  /**
   * Events as stored JSON text, oldest first: at most `limit`, and no more than `maxBytes` of them
   * (but at least one); `cut` says the byte budget ended the page early.
   */
  async list(ex: Executor, organizationId: string, f: LineageEventFilter, offset: number, limit: number, maxBytes: number): Promise<{ docs: string[]; cut: boolean }> {
    const sizes = await ex
      .selectFrom("lineage_events")
      .select(["row_id", sql<number | string>`octet_length(doc)`.as("bytes")])
      .where("organization_id", "=", organizationId)
      .$if(f.jobNamespace !== undefined, (qb) => qb.where("job_namespace", "=", f.jobNamespace!))
      .$if(f.jobName !== undefined, (qb) => qb.where("job_name", "=", f.jobName!))
      .$if(f.runId !== undefined, (qb) => qb.where("run_id", "=", f.runId!))
      .$if(f.eventType !== undefined, (qb) => qb.where("event_type", "=", f.eventType!))
      .$if(f.dataProductId !== undefined, (qb) => qb.where("data_product_id", "=", f.dataProductId!))
      // Without a filter an index holds few rows of, the page is read in order; with one, from that filter's index.
      .$if(f.runId === undefined && f.jobNamespace === undefined && f.dataProductId === undefined, (qb) => qb.where(inOrderIndex("row_id")))
      .orderBy("row_id")
      .offset(offset)
      .limit(limit)
      .execute();
    const { rows, cut } = await loadWithinBudget(sizes, maxBytes, (rowIds) => ex.selectFrom("lineage_events").select(["row_id", "doc"]).where("row_id", "in", rowIds).execute());
    return { docs: rows.map((r) => r.doc), cut };
  },

  async delete(ex: Executor, organizationId: string, f: LineageDeleteFilter): Promise<number> {
    const result = await ex
      .deleteFrom("lineage_events")
      .where("organization_id", "=", organizationId)
      .$if(f.runId !== undefined, (qb) => qb.where("run_id", "=", f.runId!))
      .$if(f.jobNamespace !== undefined, (qb) => qb.where("job_namespace", "=", f.jobNamespace!))
      .$if(f.jobName !== undefined, (qb) => qb.where("job_name", "=", f.jobName!))
      .$call((qb) => postedByTeams(qb, f.teamIds))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Distinct edges touching any of these datasets (namespace as stored: normalized), at most `limit`. */
  edgesOfDatasets(ex: Executor, organizationId: string, datasets: ReadonlyArray<{ namespace: string; name: string }>, limit: number): Promise<EdgeRow[]> {
    return distinctEdges(datasets, limit, (keys, most) =>
      ex
        .selectFrom(keys)
        .crossJoin("lineage_edge_keys as ek")
        .where("ek.organization_id", "=", organizationId)
        .whereRef("ek.dataset_namespace", "=", "k.column1")
        .whereRef("ek.dataset_name", "=", "k.column2")
        .where(carried)
        .select(EDGE_COLUMNS.map((c) => `ek.${c}` as const))
        .distinct()
        .limit(most)
        .execute(),
    );
  },

  /**
   * Distinct edges of any of these jobs, at most `limit`: the edges of the jobs' events (no index
   * holds edges by job, migration 0290).
   */
  edgesOfJobs(ex: Executor, organizationId: string, jobs: ReadonlyArray<{ namespace: string; name: string }>, limit: number): Promise<EdgeRow[]> {
    return distinctEdges(jobs, limit, (keys, most) =>
      ex
        .selectFrom(keys)
        .crossJoin("lineage_events as ev")
        .crossJoin("lineage_edges as e")
        .where("ev.organization_id", "=", organizationId)
        .whereRef("ev.job_namespace", "=", "k.column1")
        .whereRef("ev.job_name", "=", "k.column2")
        .whereRef("e.event_row_id", "=", "ev.row_id")
        .select(EDGE_COLUMNS.map((c) => `e.${c}` as const))
        .distinct()
        .limit(most)
        .execute(),
    );
  },

  /** Distinct datasets stored under one namespace (normalized), at most `limit`: candidates for a port's pattern. */
  async datasetsIn(ex: Executor, organizationId: string, namespace: string, limit: number): Promise<Array<{ namespace: string; name: string }>> {
    const rows = await ex
      .selectFrom("lineage_edge_keys as ek")
      .select(["ek.dataset_namespace", "ek.dataset_name"])
      .distinct()
      .where("ek.organization_id", "=", organizationId)
      .where("ek.dataset_namespace", "=", namespace)
      .where(carried)
      .orderBy("ek.dataset_name")
      .limit(limit)
      .execute();
    return rows.map((r) => ({ namespace: r.dataset_namespace, name: r.dataset_name }));
  },

  /** The organization's data products with their documents (ports and servers), at most `limit`. */
  async products(ex: Executor, organizationId: string, limit: number): Promise<ProductRow[]> {
    return ex
      .selectFrom("resources")
      .select(["id", "owner_team_id", "doc"])
      .where("organization_id", "=", organizationId)
      .where("kind", "=", "dataproduct")
      .orderBy("row_id")
      .limit(limit)
      .execute();
  },

  /** The data products of these ids that are in the catalog, 500 ids a statement. */
  async productsByIds(ex: Executor, organizationId: string, ids: readonly string[]): Promise<ProductRow[]> {
    const found: ProductRow[] = [];
    for (const slice of chunked([...new Set(ids)])) {
      found.push(...(await ex.selectFrom("resources").select(["id", "owner_team_id", "doc"]).where("organization_id", "=", organizationId).where("kind", "=", "dataproduct").where("id", "in", slice).execute()));
    }
    return found;
  },

  async product(ex: Executor, organizationId: string, id: string): Promise<ProductRow | undefined> {
    return ex.selectFrom("resources").select(["id", "owner_team_id", "doc"]).where("organization_id", "=", organizationId).where("kind", "=", "dataproduct").where("id", "=", id).executeTakeFirst();
  },

  /** The active accesses now to any of these ports (data product and port id), with their consumers; 250 ports a statement. */
  async activeAccessesTo(ex: Executor, organizationId: string, ports: ReadonlyArray<{ dataProductId: string; outputPortId: string }>): Promise<ActiveAccessRow[]> {
    const found: ActiveAccessRow[] = [];
    for (const slice of chunked(ports, 250)) {
      found.push(
        ...(await ex
          .selectFrom("accesses")
          .select(["provider_data_product_id", "provider_output_port_id", "consumer_type", "consumer_data_product_id", "consumer_team_id"])
          .where("organization_id", "=", organizationId)
          .where("active", "=", 1)
          .where((eb) => eb.or(slice.map((port) => eb.and([eb("provider_data_product_id", "=", port.dataProductId), eb("provider_output_port_id", "=", port.outputPortId)]))))
          .execute()),
      );
    }
    return found;
  },

  /** Records reads without an agreement; answers, row by row, whether it is new (none yet for its job, port and day). */
  recordViolations(ex: Executor, rows: readonly LineageViolationRow[]): Promise<boolean[]> {
    return violationRepository.record(ex, "lineage_violations", ["organization_id", "job_namespace", "job_name", "data_product_id", "output_port_id", "day"], rows);
  },
};

/** `keys` as a table of two text columns, `column1` (namespace) and `column2` (name), for both databases. */
function keyTable(keys: ReadonlyArray<{ namespace: string; name: string }>) {
  return sql<{ column1: string; column2: string }>`(values ${sql.join(keys.map((k) => sql`(${k.namespace}, ${k.name})`))})`.as("k");
}

/**
 * Distinct edges found from `keys`, 200 keys a statement, at most `limit`. The keys are joined as a
 * table of values, so that each is looked up by the whole of its index's key: a list of
 * alternatives after the organization (`organization_id = ? and (… or …)`) was planned on the
 * organization alone, a walk of all its edges. The joins are cross joins, which SQLite keeps in
 * the order written (the values first); PostgreSQL plans them as any join.
 */
async function distinctEdges(keys: ReadonlyArray<{ namespace: string; name: string }>, limit: number, query: (k: ReturnType<typeof keyTable>, limit: number) => Promise<EdgeRow[]>): Promise<EdgeRow[]> {
  const found: EdgeRow[] = [];
  for (const slice of chunked(keys, 200)) {
    if (found.length >= limit) break;
    found.push(...(await query(keyTable(slice), limit - found.length)));
  }
  return found;
}
