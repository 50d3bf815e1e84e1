import { upOnly } from "./up-only.js";

/**
 * The ID token a single sign-on session began with (docs/identity.md, "Signing out"): sent back to
 * the provider as `id_token_hint` when the person signs out. It goes with its session row.
 */
export default upOnly(async (db) => {
  await db.schema.alterTable("sessions").addColumn("id_token", "text").execute();
});
