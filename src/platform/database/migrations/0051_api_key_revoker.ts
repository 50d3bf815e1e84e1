import { upOnly } from "./up-only.js";

export default upOnly(async (db) => {
  // Revoked keys stay listed with who revoked them: `api-key:<id>` or `user:<id>`.
  await db.schema.alterTable("api_keys").addColumn("revoked_by", "text").execute();
});
