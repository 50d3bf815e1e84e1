import type { Executor } from "../platform/database/index.js";

/**
 * The SQL that finds who beyond an access's two teams hears of an event (docs/notifications.md):
 * persons who consume accesses themselves, the owner team of a changed document, the teams a
 * require-approvals policy names, and what a deleted team leaves behind.
 */
export const audienceRepository = {
  /**
   * The member of the organization an access's consumer {userId} names: their account id or their
   * address (docs/access.md). Undefined when nobody of the organization answers to it.
   */
  async member(ex: Executor, organizationId: string, userId: string): Promise<string | undefined> {
    const lower = userId.trim().toLowerCase();
    const row = await ex
      .selectFrom("users as u")
      .innerJoin("memberships as m", "m.user_id", "u.id")
      .select("u.id")
      .where("m.organization_id", "=", organizationId)
      .where((eb) => eb.or([eb("u.id", "=", userId), eb("u.email", "=", lower)]))
      .executeTakeFirst();
    return row?.id;
  },

  /** The owner team of a catalog document, as stored now. */
  async ownerTeam(ex: Executor, organizationId: string, kind: "datacontract" | "dataproduct", id: string): Promise<string | null> {
    const row = await ex.selectFrom("resources").select("owner_team_id").where("organization_id", "=", organizationId).where("kind", "=", kind).where("id", "=", id).executeTakeFirst();
    return row?.owner_team_id ?? null;
  },

  /** The teams the named policies' require-approvals rules call eligible (`approvals.eligible.teams`). */
  async eligibleTeams(ex: Executor, organizationId: string, policyIds: readonly string[]): Promise<string[]> {
    if (policyIds.length === 0) return [];
    const rows = await ex.selectFrom("resources").select("doc").where("organization_id", "=", organizationId).where("kind", "=", "policy").where("id", "in", policyIds.slice(0, 100)).execute();
    const teams = new Set<string>();
    for (const row of rows) {
      const eligible = (JSON.parse(row.doc) as { rule?: { approvals?: { eligible?: { teams?: unknown } } } }).rule?.approvals?.eligible?.teams;
      if (Array.isArray(eligible)) for (const team of eligible) if (typeof team === "string") teams.add(team);
    }
    return [...teams].sort();
  },

  /**
   * A team was deleted: its channels go, with their delivery logs, in the deletion's transaction,
   * so nothing more is delivered to them (a delivery already leased finds its channel gone).
   */
  async removeTeamChannels(ex: Executor, organizationId: string, teamId: string): Promise<void> {
    await ex.deleteFrom("notification_deliveries").where("organization_id", "=", organizationId).where("team_id", "=", teamId).where("channel_id", "is not", null).execute();
    await ex.deleteFrom("notification_channels").where("organization_id", "=", organizationId).where("team_id", "=", teamId).execute();
  },
};

/** An access document's consumer {userId}, or null. */
export function consumerUserId(doc: string): string | null {
  const userId = (JSON.parse(doc) as { consumer?: { userId?: unknown } }).consumer?.userId;
  return typeof userId === "string" && userId !== "" ? userId : null;
}
