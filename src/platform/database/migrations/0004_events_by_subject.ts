import type { Kysely, Migration } from "kysely";
import type { DialectName } from "../index.js";

export default function migration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      // A resource's history (GET /api/events/recent?subject=) without scanning the whole feed.
      await db.schema.createIndex("events_by_subject").on("events").columns(["organization_id", "subject", "seq"]).execute();
    },
  };
}
