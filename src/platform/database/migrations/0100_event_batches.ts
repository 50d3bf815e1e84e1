import { required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * The feed's full batches, stored once rendered (src/events/engine/batch-sealer.ts): a consumer catching
 * up then reads one row per batch instead of rendering a thousand. `after_seq` is the position the
 * batch follows, `last_seq` and `last_id` its last event; `parts` names the configuration and
 * rendering the body was made with, so a batch rendered for another `APP_URL` or type prefix is
 * never served.
 *
 * The body is UTF-8 JSON: a blob on SQLite, which hands it back as bytes ready to send; text on
 * PostgreSQL, compressed as PostgreSQL compresses any long value. Envelopes repeat themselves, so
 * a batch takes a tenth of its length there, and reading it was no slower than uncompressed.
 */
export default upOnly(async (db, dialect) => {
  await db.schema
    .createTable("event_batches")
    .addColumn("organization_id", "text", (c) => c.notNull())
    .$call(required("bigint", "after_seq", "last_seq"))
    .addColumn("last_id", "text", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("parts", "text", (c) => c.notNull())
    .addColumn("body", dialect === "postgres" ? "text" : "blob", (c) => c.notNull())
    .addPrimaryKeyConstraint("event_batches_key", ["organization_id", "after_seq"])
    .execute();
  // Every lookup is "this organization, this rendering, the first batch ending after a position".
  await db.schema.createIndex("event_batches_by_end").on("event_batches").columns(["organization_id", "parts", "last_seq"]).execute();
});
