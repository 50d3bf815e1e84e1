import { organizationRows, required } from "./columns.js";
import { upOnly } from "./up-only.js";

export default upOnly(async (db, dialect) => {
  await db.schema
    .createTable("test_results")
    .$call(organizationRows(dialect))
    .$call(required("text", "id", "data_contract_id"))
    .addColumn("server", "text")
    .addColumn("result", "text", (c) => c.notNull())
    // The contract's owner when the run was published: who may delete it.
    .addColumn("owner_team_id", "text")
    // The run without its checks and logs, which lists leave out.
    .$call(required("text", "summary", "doc", "created_at"))
    .addUniqueConstraint("test_results_identity", ["organization_id", "id"])
    .execute();
  // Lists are newest first, often of one contract.
  await db.schema.createIndex("test_results_by_contract").on("test_results").columns(["organization_id", "data_contract_id", "row_id"]).execute();
});
