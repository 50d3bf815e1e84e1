import { sql, type Selectable } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import { WRITE_LATER } from "../../platform/database/drivers/pg-write-behind.js";
import { inOrderIndex } from "../../platform/database/in-order-index.js";
import { inRowIdOrder, withinByteBudget } from "../../platform/database/byte-budget.js";
import type { TestResultsTable } from "../../platform/database/tables.js";

export type TestResultRow = Omit<Selectable<TestResultsTable>, "row_id">;

export interface TestResultFilter {
  dataContractId?: string;
  server?: string;
  offset: number;
  limit: number;
}

/** All SQL over published test runs; every query is bounded to one organization. */
export const testResultRepository = {
  async insert(ex: Executor, row: TestResultRow): Promise<void> {
    await ex.insertInto("test_results").values(row).modifyEnd(WRITE_LATER).execute();
  },

  async get(ex: Executor, organizationId: string, id: string): Promise<TestResultRow | undefined> {
    return ex
      .selectFrom("test_results")
      .select(["organization_id", "id", "data_contract_id", "server", "result", "owner_team_id", "summary", "doc", "created_at"])
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /**
   * Summaries (runs without checks and logs) as stored JSON text, newest first: at most
   * `filter.limit`, and no more than `maxBytes` of them (but at least one). Sizes are read first,
   * so summaries past the budget are never loaded; `cut` says the budget ended the page early.
   */
  async list(ex: Executor, organizationId: string, filter: TestResultFilter, maxBytes = Number.POSITIVE_INFINITY): Promise<{ summaries: string[]; cut: boolean }> {
    const sizes = await ex
      .selectFrom("test_results")
      .select(["row_id", sql<number | string>`octet_length(summary)`.as("bytes")])
      .where("organization_id", "=", organizationId)
      .$if(filter.dataContractId !== undefined, (qb) => qb.where("data_contract_id", "=", filter.dataContractId!))
      .$if(filter.server !== undefined, (qb) => qb.where("server", "=", filter.server!))
      // One contract's runs have an index in this order already; all of them are read in order from theirs.
      .$if(filter.dataContractId === undefined, (qb) => qb.where(inOrderIndex("row_id")))
      .orderBy("row_id", "desc")
      .offset(filter.offset)
      .limit(filter.limit)
      .execute();
    const { rowIds, cut } = withinByteBudget(sizes, maxBytes);
    if (rowIds.length === 0) return { summaries: [], cut: false };
    // Row ids name rows for good and came from this organization's runs just above.
    const rows = await ex.selectFrom("test_results").select(["row_id", "summary"]).where("row_id", "in", rowIds).execute();
    inRowIdOrder(rows, rowIds);
    return { summaries: rows.map((r) => r.summary), cut };
  },

  /** The newest runs of one contract, newest first, without their documents. */
  async newestOfContract(ex: Executor, organizationId: string, dataContractId: string, limit: number) {
    return ex
      .selectFrom("test_results")
      .select(["id", "server", "result", "summary", "created_at"])
      .where("organization_id", "=", organizationId)
      .where("data_contract_id", "=", dataContractId)
      .orderBy("row_id", "desc")
      .limit(limit)
      .execute();
  },

  async delete(ex: Executor, organizationId: string, id: string): Promise<void> {
    await ex.deleteFrom("test_results").where("organization_id", "=", organizationId).where("id", "=", id).execute();
  },
};
