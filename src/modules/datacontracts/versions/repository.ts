import type { Executor } from "../../../platform/database/index.js";
import { WRITE_LATER } from "../../../platform/database/drivers/pg-write-behind.js";

export interface StoredVersion {
  n: number;
  version: string | null;
  principal: string;
  createdAt: string;
  doc?: unknown;
  /** The document's JSON text as stored. */
  json?: string;
}

/** The only SQL over contract versions. Every query is bounded to one organization and one contract. */
export const contractVersionRepository = {
  async append(
    ex: Executor,
    row: { organizationId: string; contractId: string; version: string | null; json: string; principal: string; at: string },
  ): Promise<number> {
    const last = await ex
      .selectFrom("contract_versions")
      .select((eb) => eb.fn.max("n").as("n"))
      .where("organization_id", "=", row.organizationId)
      .where("contract_id", "=", row.contractId)
      .executeTakeFirst();
    const n = Number(last?.n ?? 0) + 1;
    await ex
      .insertInto("contract_versions")
      .values({
        organization_id: row.organizationId,
        contract_id: row.contractId,
        n,
        version: row.version,
        doc: row.json,
        principal: row.principal,
        created_at: row.at,
      })
      .modifyEnd(WRITE_LATER)
      .execute();
    return n;
  },

  /** Newest first, without the documents. */
  async list(ex: Executor, organizationId: string, contractId: string, offset: number, limit: number): Promise<StoredVersion[]> {
    const rows = await ex
      .selectFrom("contract_versions")
      .select(["n", "version", "principal", "created_at"])
      .where("organization_id", "=", organizationId)
      .where("contract_id", "=", contractId)
      .orderBy("n", "desc")
      .offset(offset)
      .limit(limit)
      .execute();
    return rows.map((r) => ({ n: Number(r.n), version: r.version, principal: r.principal, createdAt: r.created_at }));
  },

  async get(ex: Executor, organizationId: string, contractId: string, n: number): Promise<StoredVersion | undefined> {
    const row = await ex
      .selectFrom("contract_versions")
      .select(["n", "version", "principal", "created_at", "doc"])
      .where("organization_id", "=", organizationId)
      .where("contract_id", "=", contractId)
      .where("n", "=", n)
      .executeTakeFirst();
    return row && { n: Number(row.n), version: row.version, principal: row.principal, createdAt: row.created_at, doc: JSON.parse(row.doc), json: row.doc };
  },

  /** A deleted contract takes its history with it: one created again under the same id starts anew. */
  async deleteAll(ex: Executor, organizationId: string, contractId: string): Promise<void> {
    await ex.deleteFrom("contract_versions").where("organization_id", "=", organizationId).where("contract_id", "=", contractId).execute();
  },
};
