import type { Executor } from "../platform/database/index.js";
import type { NotificationRow } from "./repository.js";

/** The only SQL of people's in-app notifications and their settings. */
export const inboxRepository = {
  async disabledKinds(ex: Executor, organizationId: string, userId: string): Promise<string[]> {
    const row = await ex.selectFrom("notification_settings").select("disabled_kinds").where("organization_id", "=", organizationId).where("user_id", "=", userId).executeTakeFirst();
    return row ? (JSON.parse(row.disabled_kinds) as string[]) : [];
  },
  async setDisabledKinds(ex: Executor, organizationId: string, userId: string, kinds: string[], now: string): Promise<void> {
    await ex
      .insertInto("notification_settings")
      .values({ organization_id: organizationId, user_id: userId, disabled_kinds: JSON.stringify(kinds), updated_at: now })
      .onConflict((oc) => oc.columns(["organization_id", "user_id"]).doUpdateSet({ disabled_kinds: JSON.stringify(kinds), updated_at: now }))
      .execute();
  },
  async insertNotifications(ex: Executor, rows: Array<Omit<NotificationRow, "row_id">>): Promise<void> {
    for (const row of rows) await ex.insertInto("notifications").values(row).onConflict((oc) => oc.columns(["user_id", "event_id", "kind"]).doNothing()).execute();
  },
  async listNotifications(ex: Executor, organizationId: string, userId: string, limit: number, unreadOnly: boolean, before?: number): Promise<NotificationRow[]> {
    return (await ex
      .selectFrom("notifications")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("user_id", "=", userId)
      .$if(unreadOnly, (qb) => qb.where("read_at", "is", null))
      .$if(before !== undefined, (qb) => qb.where("row_id", "<", before!))
      .orderBy("row_id", "desc")
      .limit(limit)
      .execute()) as NotificationRow[];
  },
  async notificationPosition(ex: Executor, organizationId: string, userId: string, id: string): Promise<number | undefined> {
    const row = await ex.selectFrom("notifications").select("row_id").where("organization_id", "=", organizationId).where("user_id", "=", userId).where("id", "=", id).executeTakeFirst();
    return row === undefined ? undefined : Number(row.row_id);
  },
  async unreadCount(ex: Executor, organizationId: string, userId: string): Promise<number> {
    const row = await ex
      .selectFrom("notifications")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("organization_id", "=", organizationId)
      .where("user_id", "=", userId)
      .where("read_at", "is", null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
  /** Marks the person's notifications read: the ones named, or all when `ids` is undefined. Answers how many changed. */
  async markRead(ex: Executor, organizationId: string, userId: string, ids: string[] | undefined, now: string): Promise<number> {
    if (ids !== undefined && ids.length === 0) return 0;
    const result = await ex
      .updateTable("notifications")
      .set({ read_at: now })
      .where("organization_id", "=", organizationId)
      .where("user_id", "=", userId)
      .where("read_at", "is", null)
      .$if(ids !== undefined, (qb) => qb.where("id", "in", ids!))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  },
};
