import { upOnly } from "./up-only.js";

/**
 * API keys no longer keep the first characters of their secret: nothing ever showed them, and a
 * part of a secret kept in the clear is one more thing a database dump gives away.
 */
export default upOnly(async (db) => {
  await db.schema.alterTable("api_keys").dropColumn("secret_hint").execute();
});
