import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";

/** Who caused each event (`api-key:<id>`, `user:<id>`, `system`) and the comment given with it. */
export default function migration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable("events").addColumn("principal", "text", (c) => c.notNull().defaultTo("system")).execute();
      await db.schema.alterTable("events").addColumn("comment", "text").execute();
    },
  };
}
