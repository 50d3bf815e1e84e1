import { Type } from "@sinclair/typebox";
import { errors, NoContent } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import { ResourceId } from "../../platform/http/shapes.js";
import type { NotificationChannelService } from "./service.js";
import { ChannelId, DeliverySchema, NotificationChannelInputSchema, NotificationChannelSchema } from "./shapes.js";

const TeamParams = Type.Object({ teamId: ResourceId });
const ChannelParams = Type.Object({ teamId: ResourceId, channelId: ChannelId });
const tags = ["notification-channels"];

/** /api/teams/{teamId}/notification-channels: a team's channels and their delivery logs (docs/notifications.md). */
export function notificationChannelRoutes(app: App, channels: NotificationChannelService): void {
  const base = "/api/teams/:teamId/notification-channels";

  app.get(
    base,
    { schema: { tags, summary: "List a team's notification channels", params: TeamParams, response: { 200: Type.Array(NotificationChannelSchema), ...errors(403, 404) } } },
    async (request) => channels.list(principalOf(request), request.params.teamId),
  );

  app.get(
    `${base}/:channelId`,
    { schema: { tags, summary: "Read a team's notification channel (never a webhook's secret)", params: ChannelParams, response: { 200: NotificationChannelSchema, ...errors(403, 404) } } },
    async (request) => channels.get(principalOf(request), request.params.teamId, request.params.channelId),
  );

  app.put(
    `${base}/:channelId`,
    {
      schema: {
        tags,
        summary: "Add or replace a team's notification channel",
        description:
          "The endpoint is refused when it resolves to a private, loopback or link-local address (unless the operator allows it). A `webhook` channel's answer carries its signing `secret` the one time it is made.",
        params: ChannelParams,
        body: NotificationChannelInputSchema,
        response: { 200: NotificationChannelSchema, ...errors(403, 404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { channel } = await channels.put(principalOf(request), request.params.teamId, request.params.channelId, request.body);
      if (channel.secret !== undefined) reply.header("cache-control", "no-store");
      return channel;
    },
  );

  app.delete(
    `${base}/:channelId`,
    { schema: { tags, summary: "Remove a team's notification channel and its delivery log", params: ChannelParams, response: { 200: NoContent, ...errors(403, 404) } } },
    async (request, reply) => {
      await channels.delete(principalOf(request), request.params.teamId, request.params.channelId);
      return reply.code(200).send(null);
    },
  );

  app.get(
    `${base}/:channelId/deliveries`,
    {
      schema: {
        tags,
        summary: "A channel's delivery log, newest first",
        params: ChannelParams,
        querystring: Type.Object({
          limit: Type.Optional(Type.String({ pattern: "^0*([1-9][0-9]{0,2}|1000)$", description: "At most this many (1–1000, default 100)." })),
          before: Type.Optional(Type.String({ maxLength: 64, description: "The id of a delivery: those queued before it." })),
        }),
        response: { 200: Type.Array(DeliverySchema), ...errors(403, 404) },
      },
    },
    async (request) =>
      channels.deliveries(principalOf(request), request.params.teamId, request.params.channelId, Number(request.query.limit ?? 100), request.query.before),
  );

  app.post(
    `${base}/:channelId/deliveries/:deliveryId/redeliver`,
    {
      schema: {
        tags,
        summary: "Deliver a notification again",
        description: "Queues the delivery again, due now, with the same `webhook-id`.",
        params: Type.Object({ teamId: ResourceId, channelId: ChannelId, deliveryId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 202: DeliverySchema, ...errors(403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await channels.redeliver(principalOf(request), request.params.teamId, request.params.channelId, request.params.deliveryId)),
  );
}
