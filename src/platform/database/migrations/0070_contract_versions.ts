import { belongsToOrganization, required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * Every document a data contract has had, numbered from 1 (docs/product.md §9). Existing contracts
 * start with their current document as version 1.
 */
export default upOnly(async (db) => {
  await db.schema
    .createTable("contract_versions")
    .$call(belongsToOrganization)
    .addColumn("contract_id", "text", (c) => c.notNull())
    .addColumn("n", "integer", (c) => c.notNull())
    .addColumn("version", "text")
    .$call(required("text", "doc", "principal", "created_at"))
    .addPrimaryKeyConstraint("contract_versions_pk", ["organization_id", "contract_id", "n"])
    .execute();

  const contracts = await db
    .selectFrom("resources")
    .select(["organization_id", "id", "doc", "updated_at"])
    .where("kind", "=", "datacontract")
    .execute();
  for (const c of contracts) {
    await db
      .insertInto("contract_versions")
      .values({ organization_id: c.organization_id, contract_id: c.id, n: 1, version: versionOf(c.doc), doc: c.doc, principal: "system", created_at: c.updated_at })
      .execute();
  }
});

/** The version string of a stored contract in any of its formats (ODCS `version`, DCS `info.version`). */
function versionOf(text: string): string | null {
  const doc = JSON.parse(text) as { version?: unknown; info?: { version?: unknown } };
  const version = doc.version ?? doc.info?.version;
  return typeof version === "string" ? version : null;
}
