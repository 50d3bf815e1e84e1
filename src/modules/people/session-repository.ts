import type { Selectable } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import { tokenRows } from "./token-rows.js";
import type { SessionsTable } from "../../platform/database/tables.js";

export type SessionRow = Selectable<SessionsTable>;

/** SQL about sessions of the web app. */
export const sessionRepository = {
  ...tokenRows("sessions"),

  async touch(ex: Executor, id: string, lastSeenAt: string, expiresAt: string): Promise<void> {
    await ex.updateTable("sessions").set({ last_seen_at: lastSeenAt, expires_at: expiresAt }).where("id", "=", id).execute();
  },

  async setOrganization(ex: Executor, id: string, organizationId: string | null): Promise<void> {
    await ex.updateTable("sessions").set({ organization_id: organizationId }).where("id", "=", id).execute();
  },

  async delete(ex: Executor, id: string): Promise<void> {
    await ex.deleteFrom("sessions").where("id", "=", id).execute();
  },

  async deleteExpired(ex: Executor, now: string): Promise<void> {
    await ex.deleteFrom("sessions").where("expires_at", "<=", now).execute();
  },

  /** Ends the account's sessions that work in `organizationId` (the person left it). */
  async deleteInOrganization(ex: Executor, userId: string, organizationId: string): Promise<void> {
    await ex.deleteFrom("sessions").where("user_id", "=", userId).where("organization_id", "=", organizationId).execute();
  },

  /** Ends every session of an account, but the one that asked (after its password changed). */
  async deleteOthersOf(ex: Executor, userId: string, keepId: string | null): Promise<void> {
    await ex
      .deleteFrom("sessions")
      .where("user_id", "=", userId)
      .$if(keepId !== null, (qb) => qb.where("id", "!=", keepId!))
      .execute();
  },
};
