import { sql, type Insertable } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import { loadWithinBudget } from "../../platform/database/byte-budget.js";
import { chunked } from "../../platform/database/chunks.js";
import { deleteMadeBefore } from "../../platform/database/bulk.js";
import { postedByTeams, violationRepository } from "../lineage/read-records-repository.js";
import type { UsageSpansTable, UsageViolationsTable } from "../../platform/database/tables.js";

export type NewUsageSpan = Omit<Insertable<UsageSpansTable>, "row_id">;
export type UsageViolationRow = Insertable<UsageViolationsTable>;

export interface UsageSpanFilter {
  scopeName?: string;
  dataProductId?: string;
  dataContractId?: string;
  outputPortId?: string;
  accessId?: string;
  /** ISO instants: spans that started at or after `since` and before `until`. */
  since?: string;
  until?: string;
}

export interface UsageDeleteFilter {
  scopeName?: string;
  dataProductId?: string;
  dataContractId?: string;
  spanId?: string;
  /** Only spans posted by principals of these teams (a team principal deletes only its own). */
  teamIds?: readonly string[];
}

/** A stored span with its resource and scope, as JSON text. */
export interface StoredSpan {
  resource: string;
  scope: string;
  span: string;
}

/** One consumer's uses of a product or an access. */
export interface ConsumerUseRow {
  consumer_type: string;
  consumer_id: string;
  uses: number | string;
  last_used_at: string;
}

/** The access a span names, as usage reads it. */
export interface AccessRow {
  id: string;
  provider_data_product_id: string;
  provider_output_port_id: string;
  consumer_type: "dataProduct" | "team" | "user";
  consumer_data_product_id: string | null;
  consumer_team_id: string | null;
}

const SPAN_UPDATES = ["scope_name", "service_name", "data_product_id", "output_port_id", "data_contract_id", "access_id", "consumer_type", "consumer_id", "start_time", "end_time", "team_id", "resource", "scope", "span", "created_at"] as const;

/** All SQL over usage: spans, uses without an agreement, and summaries, per organization. */
export const usageRepository = {
  /**
   * Stores spans in a few statements; a span (trace and span id) sent again replaces the stored one,
   * and of the same span twice in `spans` the later is kept.
   */
  async upsertSpans(ex: Executor, spans: readonly NewUsageSpan[]): Promise<void> {
    const latest = new Map(spans.map((span) => [JSON.stringify([span.organization_id, span.trace_id, span.span_id]), span]));
    // Nineteen values a span: a slice stays below SQLite's 32,766 parameters.
    for (const slice of chunked([...latest.values()], 1000)) {
      await ex
        .insertInto("usage_spans")
        .values(slice)
        .onConflict((oc) => oc.columns(["organization_id", "trace_id", "span_id"]).doUpdateSet((eb) => Object.fromEntries(SPAN_UPDATES.map((c) => [c, eb.ref(`excluded.${c}`)]))))
        .execute();
    }
  },

  /** Records uses without an agreement; answers, row by row, whether it is new (none yet for its consumer, service, port and day). */
  recordViolations(ex: Executor, rows: readonly UsageViolationRow[]): Promise<boolean[]> {
    return violationRepository.record(ex, "usage_violations", ["organization_id", "consumer_type", "consumer_id", "service_name", "data_product_id", "output_port_id", "day"], rows);
  },

  /** The accesses of these ids, 500 ids a statement. */
  async accessesByIds(ex: Executor, organizationId: string, ids: readonly string[]): Promise<AccessRow[]> {
    const found: AccessRow[] = [];
    for (const slice of chunked([...new Set(ids)])) found.push(...(await accessRows(ex, organizationId).where("id", "in", slice).execute()));
    return found;
  },

  /** Which of these ids are teams of the organization, 500 ids a statement. */
  async teamsAmong(ex: Executor, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const slice of chunked([...new Set(ids)])) {
      const rows = await ex.selectFrom("resources").select("id").where("organization_id", "=", organizationId).where("kind", "=", "team").where("id", "in", slice).execute();
      for (const row of rows) found.add(row.id);
    }
    return found;
  },

  async access(ex: Executor, organizationId: string, id: string): Promise<AccessRow | undefined> {
    return accessRows(ex, organizationId).where("id", "=", id).executeTakeFirst();
  },

  /**
   * Spans, ordered by when they started: at most `limit`, and no more than `maxBytes` of them (but
   * at least one); `cut` says the byte budget ended the page early.
   */
  async list(ex: Executor, organizationId: string, f: UsageSpanFilter, offset: number, limit: number, maxBytes: number): Promise<{ spans: StoredSpan[]; cut: boolean }> {
    const sizes = await ex
      .selectFrom("usage_spans")
      .select(["row_id", sql<number | string>`octet_length(resource) + octet_length(scope) + octet_length(span)`.as("bytes")])
      .where("organization_id", "=", organizationId)
      .$if(f.scopeName !== undefined, (qb) => qb.where("scope_name", "=", f.scopeName!))
      .$if(f.dataProductId !== undefined, (qb) => qb.where("data_product_id", "=", f.dataProductId!))
      .$if(f.dataContractId !== undefined, (qb) => qb.where("data_contract_id", "=", f.dataContractId!))
      .$if(f.outputPortId !== undefined, (qb) => qb.where("output_port_id", "=", f.outputPortId!))
      .$if(f.accessId !== undefined, (qb) => qb.where("access_id", "=", f.accessId!))
      .$if(f.since !== undefined, (qb) => qb.where("start_time", ">=", f.since!))
      .$if(f.until !== undefined, (qb) => qb.where("start_time", "<", f.until!))
      .orderBy("start_time")
      .orderBy("row_id")
      .offset(offset)
      .limit(limit)
      .execute();
    const { rows, cut } = await loadWithinBudget(sizes, maxBytes, (rowIds) => ex.selectFrom("usage_spans").select(["row_id", "resource", "scope", "span"]).where("row_id", "in", rowIds).execute());
    return { spans: rows, cut };
  },

  async delete(ex: Executor, organizationId: string, f: UsageDeleteFilter): Promise<number> {
    const result = await ex
      .deleteFrom("usage_spans")
      .where("organization_id", "=", organizationId)
      .$if(f.scopeName !== undefined, (qb) => qb.where("scope_name", "=", f.scopeName!))
      .$if(f.dataProductId !== undefined, (qb) => qb.where("data_product_id", "=", f.dataProductId!))
      .$if(f.dataContractId !== undefined, (qb) => qb.where("data_contract_id", "=", f.dataContractId!))
      .$if(f.spanId !== undefined, (qb) => qb.where("span_id", "=", f.spanId!))
      .$call((qb) => postedByTeams(qb, f.teamIds))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Each consumer's uses of a data product (`data_product_id`) or under an access (`access_id`), most recent first, at most `limit`. */
  async consumersOf(ex: Executor, organizationId: string, by: { column: "data_product_id" | "access_id"; id: string }, limit: number): Promise<ConsumerUseRow[]> {
    return ex
      .selectFrom("usage_spans")
      .select(["consumer_type", "consumer_id", (eb) => eb.fn.countAll<number | string>().as("uses"), (eb) => eb.fn.max("start_time").as("last_used_at")])
      .where("organization_id", "=", organizationId)
      .where(by.column, "=", by.id)
      .groupBy(["consumer_type", "consumer_id"])
      .orderBy("last_used_at", "desc")
      .limit(limit)
      .execute();
  },

  /** How many spans of a data product or access are kept. */
  async countOf(ex: Executor, organizationId: string, by: { column: "data_product_id" | "access_id"; id: string }): Promise<number> {
    const row = await ex.selectFrom("usage_spans").select((eb) => eb.fn.countAll<number | string>().as("n")).where("organization_id", "=", organizationId).where(by.column, "=", by.id).executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Removes up to `limit` spans of any organization stored before `before` (the periodic sweep). */
  deleteAnyStoredBefore(ex: Executor, before: string, limit: number): Promise<number> {
    return deleteMadeBefore(ex, "usage_spans", before, limit, "row_id");
  },
};

const accessRows = (ex: Executor, organizationId: string) =>
  ex
    .selectFrom("accesses")
    .select(["id", "provider_data_product_id", "provider_output_port_id", "consumer_type", "consumer_data_product_id", "consumer_team_id"])
    .where("organization_id", "=", organizationId);
