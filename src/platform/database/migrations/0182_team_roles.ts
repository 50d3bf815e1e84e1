import { upOnly } from "./up-only.js";

/** An organization's team roles (docs/identity.md): built-in, or its own catalog kept as JSON text. */
export default upOnly(async (db) => {
  await db.schema.alterTable("identity_settings").addColumn("team_roles_mode", "text", (c) => c.notNull().defaultTo("default")).execute();
  await db.schema.alterTable("identity_settings").addColumn("team_roles", "text", (c) => c.notNull().defaultTo("[]")).execute();
});
