import { upOnly } from "./up-only.js";

export default upOnly(async (db) => {
  // Keys of scope `user` and `user_read` act as one person: the account's id. Set once, at creation.
  await db.schema.alterTable("api_keys").addColumn("user_id", "text").execute();
});
