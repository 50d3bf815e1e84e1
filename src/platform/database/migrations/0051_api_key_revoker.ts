import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";

export default function migration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      // Revoked keys stay listed with who revoked them: `api-key:<id>` or `user:<id>`.
      await db.schema.alterTable("api_keys").addColumn("revoked_by", "text").execute();
    },
  };
}
