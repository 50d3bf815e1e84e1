import { Type } from "@sinclair/typebox";
import { errors } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import { policy } from "../../policies/index.js";
import type { NotificationService } from "./service.js";
import { MarkReadSchema, NotificationSchema, NotificationSettingsSchema, UnreadCountSchema } from "./shapes.js";

const tags = ["notifications"];

/** Who may use these routes is known from the principal alone: decided before a body is read. */
const personOnly = { preValidation: async (request: Parameters<typeof principalOf>[0]) => void policy.readOwnNotifications(principalOf(request)) };

/** /api/notifications: the signed-in person's own notifications (docs/notifications.md). */
export function notificationRoutes(app: App, notifications: NotificationService): void {
  app.get(
    "/api/notifications",
    {
      schema: {
        tags,
        summary: "The signed-in person's notifications, newest first",
        querystring: Type.Object({
          unread: Type.Optional(Type.Union([Type.Literal("true"), Type.Literal("false")], { description: "`true`: only those not read yet." })),
          limit: Type.Optional(Type.String({ pattern: "^0*([1-9][0-9]{0,2}|1000)$", description: "At most this many (1–1000, default 50)." })),
          before: Type.Optional(Type.String({ maxLength: 64, description: "The id of a notification: those older than it." })),
        }),
        response: { 200: Type.Array(NotificationSchema), ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return notifications.list(principalOf(request), { limit: Number(request.query.limit ?? 50), unreadOnly: request.query.unread === "true", before: request.query.before });
    },
  );

  app.get(
    "/api/notifications/unread-count",
    { schema: { tags, summary: "How many of the signed-in person's notifications are unread", response: { 200: UnreadCountSchema, ...errors(403) } } },
    async (request, reply) => {
      reply.header("cache-control", "no-store");
      return { unread: await notifications.unread(principalOf(request)) };
    },
  );

  app.post(
    "/api/notifications/read",
    {
      ...personOnly,
      schema: {
        tags,
        summary: "Mark notifications read",
        body: MarkReadSchema,
        response: { 200: Type.Object({ marked: Type.Integer() }), ...errors(403, 415, 422) },
      },
    },
    async (request) => ({ marked: await notifications.markRead(principalOf(request), request.body.ids) }),
  );

  app.get(
    "/api/notifications/settings",
    { schema: { tags, summary: "Which kinds of notification the signed-in person turned off", response: { 200: NotificationSettingsSchema, ...errors(403) } } },
    async (request) => notifications.settings(principalOf(request)),
  );

  app.put(
    "/api/notifications/settings",
    {
      ...personOnly,
      schema: {
        tags,
        summary: "Turn kinds of notification off or on again",
        body: NotificationSettingsSchema,
        response: { 200: NotificationSettingsSchema, ...errors(403, 415, 422) },
      },
    },
    async (request) => notifications.putSettings(principalOf(request), request.body),
  );
}
