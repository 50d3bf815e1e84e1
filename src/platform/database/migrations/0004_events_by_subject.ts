import { upOnly } from "./up-only.js";

export default upOnly(async (db) => {
  // A resource's history (GET /api/events/recent?subject=) without scanning the whole feed.
  await db.schema.createIndex("events_by_subject").on("events").columns(["organization_id", "subject", "seq"]).execute();
});
