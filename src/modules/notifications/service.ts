import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { notFound } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import type { Message } from "../../notifications/messages.js";
import { inboxRepository as repo } from "../../notifications/inbox-repository.js";
import type { NotificationRow } from "../../notifications/repository.js";
import { NOTIFICATION_KINDS } from "../../notifications/rules.js";
import type { Notification, NotificationSettings } from "./shapes.js";

/** A person's in-app notifications and which kinds they turned off (docs/notifications.md). */
export class NotificationService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  async list(p: Principal, options: { limit: number; unreadOnly: boolean; before?: string }): Promise<Notification[]> {
    const userId = policy.readOwnNotifications(p);
    let before: number | undefined;
    if (options.before !== undefined) {
      before = await repo.notificationPosition(this.database.db, p.organizationId, userId, options.before);
      if (before === undefined) throw notFound("Notification", options.before);
    }
    return (await repo.listNotifications(this.database.db, p.organizationId, userId, options.limit, options.unreadOnly, before)).map(present);
  }

  async unread(p: Principal): Promise<number> {
    return repo.unreadCount(this.database.db, p.organizationId, policy.readOwnNotifications(p));
  }

  async markRead(p: Principal, ids: string[] | undefined): Promise<number> {
    return repo.markRead(this.database.db, p.organizationId, policy.readOwnNotifications(p), ids, this.clock.now().toISOString());
  }

  async settings(p: Principal): Promise<NotificationSettings> {
    const disabled = await repo.disabledKinds(this.database.db, p.organizationId, policy.readOwnNotifications(p));
    return { disabledKinds: NOTIFICATION_KINDS.filter((k) => disabled.includes(k)), kinds: [...NOTIFICATION_KINDS] };
  }

  async putSettings(p: Principal, settings: NotificationSettings): Promise<NotificationSettings> {
    const userId = policy.readOwnNotifications(p);
    const disabled = NOTIFICATION_KINDS.filter((k) => settings.disabledKinds.includes(k));
    await repo.setDisabledKinds(this.database.db, p.organizationId, userId, disabled, this.clock.now().toISOString());
    return { disabledKinds: disabled, kinds: [...NOTIFICATION_KINDS] };
  }
}

function present(row: NotificationRow): Notification {
  const m = JSON.parse(row.message) as Message;
  return {
    id: row.id,
    kind: m.kind,
    title: m.title,
    text: m.text,
    actor: m.actor,
    comment: m.comment,
    link: m.link,
    resource: m.resource,
    eventId: m.eventId,
    time: m.time,
    read: row.read_at !== null,
  };
}
