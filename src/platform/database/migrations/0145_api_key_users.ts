import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";

export default function migration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      // Keys of scope `user` and `user_read` act as one person: the account's id. Set once, at creation.
      await db.schema.alterTable("api_keys").addColumn("user_id", "text").execute();
    },
  };
}
