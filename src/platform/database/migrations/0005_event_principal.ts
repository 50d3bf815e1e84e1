import { upOnly } from "./up-only.js";

/** Who caused each event (`api-key:<id>`, `user:<id>`, `system`) and the comment given with it. */
export default upOnly(async (db) => {
  await db.schema.alterTable("events").addColumn("principal", "text", (c) => c.notNull().defaultTo("system")).execute();
  await db.schema.alterTable("events").addColumn("comment", "text").execute();
});
