import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";
import { serial } from "./serial.js";
import { belongsToOrganization, required } from "./columns.js";

export default function migration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("test_results")
        .addColumn("row_id", serial(dialect))
        .$call(belongsToOrganization)
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
    },
  };
}
