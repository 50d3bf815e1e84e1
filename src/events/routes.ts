import { Type } from "@sinclair/typebox";
import { errors } from "../platform/http/schemas.js";
import { principalOf, type App } from "../platform/http/types.js";
import type { FeedService } from "./feed.js";
import { CloudEventSchema } from "./schemas.js";

export const CLOUDEVENTS_BATCH = "application/cloudevents-batch+json";

export function eventRoutes(app: App, feed: FeedService): void {
  app.get(
    "/api/events",
    {
      schema: {
        tags: ["events"],
        summary: "Read the event feed",
        description:
          "The organization's events strictly after lastEventId, oldest first, at most 1000. An empty array means there is nothing newer: wait 10 s before asking again.",
        querystring: Type.Object({
          lastEventId: Type.Optional(Type.String({ format: "uuid", description: "Id of the last event you processed; omit to start at the beginning." })),
          longPolling: Type.Optional(
            Type.Union([Type.Literal("true"), Type.Literal("false")], {
              description: "Deprecated: `true` holds the request until an event arrives or the hold time ends.",
              default: "false",
            }),
          ),
        }),
        response: {
          200: {
            description: "A batch of CloudEvents",
            content: { [CLOUDEVENTS_BATCH]: { schema: Type.Array(CloudEventSchema, { maxItems: 1000 }) } },
          },
          ...errors(503),
        },
      },
    },
    async (request, reply) => {
      const { lastEventId, longPolling } = request.query;
      const body = await feed.read({ organizationId: principalOf(request).organizationId, lastEventId, longPolling: longPolling === "true" });
      return reply.type(CLOUDEVENTS_BATCH).header("cache-control", "no-store").send(body as never);
    },
  );
}
