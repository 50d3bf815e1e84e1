import { Type, type Static } from "@sinclair/typebox";
import { SafeText } from "../../platform/http/shapes.js";

/** A team's notification channel: the reference product's shape, with Steward's `webhook` and `email` types. */

export const CHANNEL_TYPES = ["slack", "teams", "googlechat", "webhook", "email"] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const ChannelId = Type.String({ minLength: 1, maxLength: 100, pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$", description: "Unique within the team." });

const ChannelTypeSchema = Type.Unsafe<ChannelType>({
  type: "string",
  enum: [...CHANNEL_TYPES],
  description: "`slack`, `teams`, `googlechat`: an incoming-webhook `endpoint`. `webhook`: the CloudEvent as JSON, signed per Standard Webhooks. `email`: `addresses`.",
});

export const MAX_ADDRESSES = 20;

export const NotificationChannelInputSchema = Type.Object(
  {
    id: Type.Optional(ChannelId),
    name: SafeText({ minLength: 1, maxLength: 200 }),
    type: ChannelTypeSchema,
    endpoint: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, format: "uri", description: "Where deliveries are POSTed; required for every type but `email`." })),
    addresses: Type.Optional(Type.Array(Type.String({ minLength: 3, maxLength: 320 }), { minItems: 1, maxItems: MAX_ADDRESSES, description: "`email` only: who receives the messages." })),
    enabled: Type.Optional(Type.Boolean({ description: "Defaults to true." })),
  },
  { title: "NotificationChannelInput", additionalProperties: false },
);
export type NotificationChannelInput = Static<typeof NotificationChannelInputSchema>;

export const NotificationChannelSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    type: ChannelTypeSchema,
    endpoint: Type.Optional(Type.String()),
    addresses: Type.Optional(Type.Array(Type.String())),
    enabled: Type.Boolean(),
    secret: Type.Optional(Type.String({ description: "`webhook` only, and only in the answer that created the secret: the `whsec_…` signing secret. Shown this once." })),
  },
  { title: "NotificationChannel" },
);
export type NotificationChannel = Static<typeof NotificationChannelSchema>;

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: "Also the `webhook-id` of a webhook delivery: the same on every attempt." }),
    eventId: Type.String(),
    kind: Type.String({ description: "The notification kind, e.g. accessRequested." }),
    status: Type.Unsafe<"pending" | "delivered" | "failed">({ type: "string", enum: ["pending", "delivered", "failed"] }),
    attempts: Type.Integer(),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's answer code at the last attempt." }),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: "date-time" }),
    lastAttemptAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
    nextAttemptAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description: "When a pending delivery is tried next." }),
    deliveredAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  },
  { title: "NotificationDelivery" },
);
export type Delivery = Static<typeof DeliverySchema>;
