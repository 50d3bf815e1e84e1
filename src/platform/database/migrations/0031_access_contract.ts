import { sql } from "kysely";
import { upOnly } from "./up-only.js";

/**
 * The data contract an access was requested under, as a column: a contract may not be deleted
 * while a requested, approved or active access was granted under it (docs/product.md §4).
 */
export default upOnly(async (db, dialect) => {
  await db.schema.alterTable("accesses").addColumn("provider_data_contract_id", "text").execute();
  const fromDoc = dialect === "postgres" ? sql`(doc::jsonb -> 'provider' ->> 'dataContractId')` : sql`json_extract(doc, '$.provider.dataContractId')`;
  await sql`update accesses set provider_data_contract_id = ${fromDoc}`.execute(db);
  await db.schema.createIndex("accesses_by_contract").on("accesses").columns(["organization_id", "provider_data_contract_id"]).execute();
});
