import type { Selectable } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import { tokenRows } from "./token-rows.js";
import type { InvitationsTable } from "../../platform/database/tables.js";

export type InvitationRow = Selectable<InvitationsTable>;

/** SQL about invitations and the first-start setup link. */
export const invitationRepository = {
  ...tokenRows("invitations"),

  /** Marks the invitation used unless it already was; answers whether this call used it. */
  async use(ex: Executor, tokenHash: string, at: string): Promise<boolean> {
    const result = await ex.updateTable("invitations").set({ used_at: at }).where("token_hash", "=", tokenHash).where("used_at", "is", null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** The organization's invitations that can still be accepted, one per address (the newest). */
  async pending(ex: Executor, organizationId: string, now: string, email?: string): Promise<InvitationRow[]> {
    const rows = await ex
      .selectFrom("invitations")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("email", "is not", null)
      .$if(email !== undefined, (qb) => qb.where("email", "=", email!))
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .orderBy("created_at", "desc")
      .execute();
    const newest = new Map<string, InvitationRow>();
    for (const row of rows) if (!newest.has(row.email!)) newest.set(row.email!, row);
    return [...newest.values()];
  },

  /** Withdraws every unused invitation of an address to an organization, expired ones included. */
  async withdraw(ex: Executor, organizationId: string, email: string): Promise<void> {
    await ex.deleteFrom("invitations").where("organization_id", "=", organizationId).where("email", "=", email).where("used_at", "is", null).execute();
  },
};
