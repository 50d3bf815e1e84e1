import { Type, type Static } from "@sinclair/typebox";
import { NOTIFICATION_KINDS } from "../../notifications/rules.js";

const Kind = Type.Unsafe<(typeof NOTIFICATION_KINDS)[number]>({ type: "string", enum: [...NOTIFICATION_KINDS] });

export const NotificationSchema = Type.Object(
  {
    id: Type.String(),
    kind: Kind,
    title: Type.String(),
    text: Type.String(),
    actor: Type.String({ description: "Who acted, by name." }),
    comment: Type.Union([Type.String(), Type.Null()]),
    link: Type.String({ description: "Where to look, in the web app." }),
    resource: Type.Object({ type: Type.String(), id: Type.String() }),
    eventId: Type.String(),
    time: Type.String({ description: "When it happened." }),
    read: Type.Boolean(),
  },
  { title: "Notification" },
);
export type Notification = Static<typeof NotificationSchema>;

export const UnreadCountSchema = Type.Object({ unread: Type.Integer() }, { title: "UnreadNotifications" });

export const MarkReadSchema = Type.Object(
  { ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000, description: "The notifications to mark read; all of them when absent." })) },
  { title: "MarkNotificationsRead", additionalProperties: false },
);

export const NotificationSettingsSchema = Type.Object(
  {
    disabledKinds: Type.Array(Kind, { maxItems: NOTIFICATION_KINDS.length, uniqueItems: true, description: "Kinds this person receives neither in the web app nor by e-mail." }),
    kinds: Type.Optional(Type.Array(Kind, { description: "Every kind there is (in answers)." })),
  },
  { title: "NotificationSettings", additionalProperties: false },
);
export type NotificationSettings = Static<typeof NotificationSettingsSchema>;
