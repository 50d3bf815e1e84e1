import { Type } from "@sinclair/typebox";
import { errors, QUERY_COUNT, SafeText } from "../platform/http/shapes.js";
import { principalOf, type App } from "../platform/http/types.js";
import type { FeedService } from "./feed.js";
import { CloudEventSchema } from "./shapes.js";

export const CLOUDEVENTS_BATCH = "application/cloudevents-batch+json";

const BATCH = {
  description: "A batch of CloudEvents",
  content: { [CLOUDEVENTS_BATCH]: { schema: Type.Array(CloudEventSchema, { maxItems: 1000 }) } },
};

const RecentEventSchema = Type.Composite(
  [CloudEventSchema, Type.Object({ principalName: Type.String({ description: "Steward's views only: who caused it, for people (a key's display name, a person's address, Steward)." }) })],
  { title: "RecentEvent" },
);

const RECENT_BATCH = {
  description: "CloudEvents, each with the name of its principal",
  content: { [CLOUDEVENTS_BATCH]: { schema: Type.Array(RecentEventSchema, { maxItems: 1000 }) } },
};

export function eventRoutes(app: App, feed: FeedService): void {
  app.get(
    "/api/events/recent",
    {
      schema: {
        tags: ["events"],
        summary: "Read the most recent events",
        description:
          "The organization's newest events (of one resource, with subject), oldest first, each with principalName: for activity views. " +
          "To follow the feed from there, pass the last id as lastEventId to GET /api/events.",
        querystring: Type.Object({
          limit: Type.Optional(Type.String({ pattern: QUERY_COUNT, description: "How many: a whole number from 1 to 1000; 100 when absent.", examples: ["100"] })),
          subject: Type.Optional(SafeText({ minLength: 1, maxLength: 256, description: "Only events about this resource id." })),
        }),
        response: {
          200: RECENT_BATCH,
          ...errors(),
        },
      },
    },
    async (request, reply) => {
      const { limit, subject } = request.query;
      const body = await feed.recent(principalOf(request).organizationId, limit === undefined ? 100 : Number(limit), subject);
      return reply.type(CLOUDEVENTS_BATCH).header("cache-control", "no-store").send(body as never);
    },
  );

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
          200: BATCH,
          ...errors(429, 503),
        },
      },
    },
    async (request, reply) => {
      const { lastEventId, longPolling } = request.query;
      const batch = await feed.read({ organizationId: principalOf(request).organizationId, lastEventId, longPolling: longPolling === "true" });
      // A body in a lent buffer is given back once the response has closed: sent, or cut off with
      // its connection. Not before: a write the socket could not take at once still reads it.
      if (batch.release) reply.raw.once("close", batch.release);
      return reply.type(CLOUDEVENTS_BATCH).header("cache-control", "no-store").send(batch.body as never);
    },
  );
}
