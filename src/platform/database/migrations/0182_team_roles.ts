import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";

/** An organization's team roles (docs/identity.md): built-in, or its own catalog kept as JSON text. */
export default function migration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable("identity_settings").addColumn("team_roles_mode", "text", (c) => c.notNull().defaultTo("default")).execute();
      await db.schema.alterTable("identity_settings").addColumn("team_roles", "text", (c) => c.notNull().defaultTo("[]")).execute();
    },
  };
}
