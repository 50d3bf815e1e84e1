import { sql } from "kysely";
import { serial } from "./serial.js";
import { belongsToOrganization, optional, required } from "./columns.js";
import { upOnly } from "./up-only.js";

/**
 * Notifications (docs/notifications.md): team channels, the cursor that derives notifications
 * from the event log, the deliveries it queues (channels and personal e-mail), the people's
 * in-app notifications and their settings.
 */
export default upOnly(async (db, dialect) => {
  await db.schema
    .createTable("notification_channels")
    .$call(belongsToOrganization)
    .$call(required("text", "team_id", "id", "name", "type"))
    .addColumn("endpoint", "text")
    // JSON array of e-mail addresses (type email).
    .addColumn("addresses", "text")
    .addColumn("enabled", "integer", (c) => c.notNull())
    // Standard Webhooks signing secret (type webhook): shown once, never answered again.
    .addColumn("secret", "text")
    .$call(required("text", "created_at", "updated_at"))
    .addPrimaryKeyConstraint("notification_channels_pk", ["organization_id", "team_id", "id"])
    .execute();

  // How far notifications have been derived from each organization's events.
  await db.schema
    .createTable("notification_cursors")
    .addColumn("organization_id", "text", (c) => c.primaryKey().references("organizations.id").onDelete("cascade"))
    .addColumn("last_seq", "bigint", (c) => c.notNull())
    .execute();
  // Existing organizations start at their latest event: what happened before notifications
  // existed is not announced now. Organizations created later start from their first event.
  await sql`insert into notification_cursors (organization_id, last_seq)
        select o.id, coalesce((select max(e.seq) from events e where e.organization_id = o.id), 0) from organizations o`.execute(db);

  await db.schema
    .createTable("notification_deliveries")
    .addColumn("row_id", serial(dialect))
    .addColumn("id", "text", (c) => c.notNull().unique())
    .$call(belongsToOrganization)
    // Who receives it, delivered in event order: `channel:<teamId>/<channelId>` or `email:<userId>`.
    .addColumn("target", "text", (c) => c.notNull())
    .$call(optional("text", "team_id", "channel_id", "user_id"))
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("event_seq", "bigint", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    // The message as derived (src/notifications/messages.ts), JSON; no secret is ever in it.
    .addColumn("message", "text", (c) => c.notNull())
    // pending, delivered or failed (gave up after the retry window).
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "text", (c) => c.notNull())
    .addColumn("lease_until", "text")
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .$call(optional("text", "last_attempt_at", "delivered_at"))
    .addUniqueConstraint("notification_deliveries_once", ["target", "event_id", "kind"])
    .execute();
  await db.schema.createIndex("notification_deliveries_by_target").on("notification_deliveries").columns(["target", "status", "event_seq"]).execute();
  await db.schema.createIndex("notification_deliveries_due").on("notification_deliveries").columns(["status", "next_attempt_at"]).execute();
  await db.schema.createIndex("notification_deliveries_by_channel").on("notification_deliveries").columns(["organization_id", "team_id", "channel_id", "row_id"]).execute();

  await db.schema
    .createTable("notifications")
    .addColumn("row_id", serial(dialect))
    .addColumn("id", "text", (c) => c.notNull().unique())
    .$call(belongsToOrganization)
    .$call(required("text", "user_id", "event_id", "kind", "message", "created_at"))
    .addColumn("read_at", "text")
    .addUniqueConstraint("notifications_once", ["user_id", "event_id", "kind"])
    .execute();
  await db.schema.createIndex("notifications_by_user").on("notifications").columns(["organization_id", "user_id", "row_id"]).execute();

  await db.schema
    .createTable("notification_settings")
    .$call(belongsToOrganization)
    .addColumn("user_id", "text", (c) => c.notNull())
    // JSON array of the notification kinds the person turned off.
    .$call(required("text", "disabled_kinds", "updated_at"))
    .addPrimaryKeyConstraint("notification_settings_pk", ["organization_id", "user_id"])
    .execute();
});
