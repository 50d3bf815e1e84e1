import { sql } from "kysely";
import type { DialectName, Executor } from "../platform/database/index.js";
import type { NotificationChannelsTable, NotificationDeliveriesTable, NotificationsTable } from "../platform/database/tables.js";

export type ChannelRow = NotificationChannelsTable;
export type DeliveryRow = Omit<NotificationDeliveriesTable, "row_id"> & { row_id: number };
export type NotificationRow = Omit<NotificationsTable, "row_id"> & { row_id: number };

/** The only SQL of notifications: channels, the derivation cursor, deliveries, people's notifications. */
export const notificationRepository = {
  async teamExists(ex: Executor, organizationId: string, teamId: string): Promise<boolean> {
    const row = await ex.selectFrom("resources").select("id").where("organization_id", "=", organizationId).where("kind", "=", "team").where("id", "=", teamId).executeTakeFirst();
    return row !== undefined;
  },

  async listChannels(ex: Executor, organizationId: string, teamId: string): Promise<ChannelRow[]> {
    return ex.selectFrom("notification_channels").selectAll().where("organization_id", "=", organizationId).where("team_id", "=", teamId).orderBy("id").execute();
  },

  async getChannel(ex: Executor, organizationId: string, teamId: string, id: string): Promise<ChannelRow | undefined> {
    return ex.selectFrom("notification_channels").selectAll().where("organization_id", "=", organizationId).where("team_id", "=", teamId).where("id", "=", id).executeTakeFirst();
  },

  async countChannels(ex: Executor, organizationId: string, teamId: string): Promise<number> {
    const row = await ex.selectFrom("notification_channels").select((eb) => eb.fn.countAll<number>().as("n")).where("organization_id", "=", organizationId).where("team_id", "=", teamId).executeTakeFirstOrThrow();
    return Number(row.n);
  },

  async insertChannel(ex: Executor, row: ChannelRow): Promise<void> {
    await ex.insertInto("notification_channels").values(row).execute();
  },

  async updateChannel(ex: Executor, row: ChannelRow): Promise<void> {
    const { organization_id, team_id, id, created_at, ...changes } = row;
    await ex.updateTable("notification_channels").set(changes).where("organization_id", "=", organization_id).where("team_id", "=", team_id).where("id", "=", id).execute();
  },

  /** Removes a channel and its delivery log. */
  async deleteChannel(ex: Executor, organizationId: string, teamId: string, id: string): Promise<void> {
    await ex.deleteFrom("notification_deliveries").where("target", "=", channelTarget(teamId, id)).where("organization_id", "=", organizationId).execute();
    await ex.deleteFrom("notification_channels").where("organization_id", "=", organizationId).where("team_id", "=", teamId).where("id", "=", id).execute();
  },

  async enabledChannels(ex: Executor, organizationId: string, teamIds: readonly string[]): Promise<ChannelRow[]> {
    if (teamIds.length === 0) return [];
    return ex
      .selectFrom("notification_channels")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("team_id", "in", teamIds)
      .where("enabled", "=", 1)
      .orderBy("team_id")
      .orderBy("id")
      .execute();
  },

  /** Organizations with events past their notification cursor (none: a cursor of 0). */
  async organizationsBehind(ex: Executor, limit: number): Promise<string[]> {
    const rows = await ex
      .selectFrom("organizations as o")
      .leftJoin("notification_cursors as c", "c.organization_id", "o.id")
      .select("o.id")
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom("events as e")
            .select("e.seq")
            .whereRef("e.organization_id", "=", "o.id")
            .where(sql<boolean>`e.seq > coalesce(c.last_seq, 0)`),
        ),
      )
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  },

  /**
   * The organization's cursor, locked until the transaction ends. On PostgreSQL another process
   * deriving for the same organization is skipped (undefined), not waited for.
   */
  async lockCursor(ex: Executor, dialect: DialectName, organizationId: string): Promise<number | undefined> {
    await ex.insertInto("notification_cursors").values({ organization_id: organizationId, last_seq: 0 }).onConflict((oc) => oc.column("organization_id").doNothing()).execute();
    const row = await ex
      .selectFrom("notification_cursors")
      .select("last_seq")
      .where("organization_id", "=", organizationId)
      .$if(dialect === "postgres", (qb) => qb.forUpdate().skipLocked())
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.last_seq);
  },

  async setCursor(ex: Executor, organizationId: string, lastSeq: number): Promise<void> {
    await ex.updateTable("notification_cursors").set({ last_seq: lastSeq }).where("organization_id", "=", organizationId).execute();
  },

  async access(ex: Executor, organizationId: string, id: string) {
    return ex
      .selectFrom("accesses")
      .select(["provider_team_id", "consumer_team_id", "provider_data_product_id", "provider_output_port_id", "consumer_type", "consumer_data_product_id", "doc"])
      .where("organization_id", "=", organizationId)
      .where("id", "=", id)
      .executeTakeFirst();
  },

  /**
   * Approved, not canceled accesses that may need a reminder: ending before `until` (and not
   * ended), or with a reassessment date in their document. At most `limit`, after `afterRowId`.
   */
  async reminderCandidates(ex: Executor, now: string, until: string, afterRowId: number, limit: number) {
    return ex
      .selectFrom("accesses")
      .select(["row_id", "organization_id", "id", "end_at", "doc", "provider_team_id", "consumer_team_id", "provider_data_product_id", "provider_output_port_id", "consumer_type", "consumer_data_product_id"])
      .where("status", "=", "approved")
      .where("canceled_at", "is", null)
      .where("row_id", ">", afterRowId)
      .where((eb) => eb.or([eb.and([eb("end_at", ">", now), eb("end_at", "<=", until)]), eb("doc", "like", "%nextReassessmentDate%")]))
      .orderBy("row_id")
      .limit(limit)
      .execute();
  },

  /** The organization's members listed in a team's `members` (by e-mail address). */
  async teamPeople(ex: Executor, organizationId: string, teamId: string): Promise<Array<{ id: string; email: string }>> {
    const team = await ex.selectFrom("resources").select("doc").where("organization_id", "=", organizationId).where("kind", "=", "team").where("id", "=", teamId).executeTakeFirst();
    if (!team) return [];
    const members = (JSON.parse(team.doc) as { members?: unknown }).members;
    if (!Array.isArray(members)) return [];
    const emails = [
      ...new Set(
        members
          .map((m) => (m !== null && typeof m === "object" && typeof (m as { emailAddress?: unknown }).emailAddress === "string" ? normalizeEmail((m as { emailAddress: string }).emailAddress) : ""))
          .filter(Boolean),
      ),
    ].slice(0, 1000);
    if (emails.length === 0) return [];
    return ex
      .selectFrom("users as u")
      .innerJoin("memberships as m", "m.user_id", "u.id")
      .select(["u.id", "u.email"])
      .where("m.organization_id", "=", organizationId)
      .where("u.email", "in", emails)
      .orderBy("u.email")
      .execute();
  },

  async userEmail(ex: Executor, userId: string): Promise<string | undefined> {
    return (await ex.selectFrom("users").select("email").where("id", "=", userId).executeTakeFirst())?.email;
  },

  /** Several rows a statement (within either database's limit on parameters); a repeat is skipped. */
  async insertDeliveries(ex: Executor, rows: Array<Omit<DeliveryRow, "row_id">>): Promise<void> {
    for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
      await ex
        .insertInto("notification_deliveries")
        .values(rows.slice(at, at + ROWS_PER_INSERT))
        .onConflict((oc) => oc.columns(["target", "event_id", "kind"]).doNothing())
        .execute();
    }
  },

  /**
   * Deliveries that may be attempted now: the head of each target (its first pending delivery in
   * event order, so each target receives in event order) when it is due and not leased, oldest
   * first. The targets are walked through the index by target, one step per target, and each
   * head is one step more: the cost grows with the number of targets, not with the deliveries
   * waiting or done (bench/README.md, "Notification fan-out").
   */
  async dueHeads(ex: Executor, now: string, limit: number): Promise<DeliveryRow[]> {
    const { rows } = await sql<DeliveryRow>`
      with recursive targets (target) as (
        select min(target) from notification_deliveries
        union all
        select (select min(n.target) from notification_deliveries n where n.target > t.target) from targets t where t.target is not null
      ), heads (row_id) as (
        select (select h.row_id from notification_deliveries h where h.target = t.target and h.status = 'pending' order by h.event_seq, h.row_id limit 1)
        from targets t where t.target is not null
      )
      select d.* from heads join notification_deliveries d on d.row_id = heads.row_id
      where d.next_attempt_at <= ${now} and (d.lease_until is null or d.lease_until < ${now})
      order by d.row_id
      limit ${limit}`.execute(ex);
    return rows;
  },

  /** Takes a delivery for this process until `until`; false when another process holds it or it is done. */
  async lease(ex: Executor, id: string, now: string, until: string): Promise<boolean> {
    const result = await ex
      .updateTable("notification_deliveries")
      .set({ lease_until: until })
      .where("id", "=", id)
      .where("status", "=", "pending")
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /**
   * Leases a target's run, when its head (first pending delivery in event order) is due and not
   * leased: the head by the conditional update of `lease` (only one process wins it), with the
   * target's next pending deliveries after it, up to `limit` in all. Those are not leased one by
   * one: while the head is leased and pending no other process starts on the target, and the run's
   * outcomes are recorded together, in one transaction, the head's among them. Run it in a
   * transaction. Empty: nothing of the target is due, or another process holds it.
   */
  async leaseRun(ex: Executor, target: string, now: string, until: string, limit: number): Promise<DeliveryRow[]> {
    const rows = (await ex
      .selectFrom("notification_deliveries")
      .selectAll()
      .where("target", "=", target)
      .where("status", "=", "pending")
      .orderBy("event_seq")
      .orderBy("row_id")
      .limit(limit)
      .execute()) as DeliveryRow[];
    const free = (row: DeliveryRow) => row.lease_until === null || row.lease_until < now;
    const head = rows[0];
    if (!head || head.next_attempt_at > now || !free(head)) return [];
    if (!(await notificationRepository.lease(ex, head.id, now, until))) return [];
    const run: DeliveryRow[] = [{ ...head, lease_until: until }];
    // One leased by another process as its target's head (a delivery queued again went ahead of it) ends the run.
    for (const row of rows.slice(1)) {
      if (!free(row)) break;
      run.push(row);
    }
    return run;
  },

  /** Gives back leases taken and not used: the deliveries are due again at once. */
  async release(ex: Executor, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await ex.updateTable("notification_deliveries").set({ lease_until: null }).where("id", "in", ids).where("status", "=", "pending").execute();
  },

  /**
   * Records one attempt more of each of `ids`, all with the same outcome, in one statement; a
   * delivery still `pending` is due again at `nextAttemptAt`.
   */
  async recordAttempts(
    ex: Executor,
    ids: readonly string[],
    outcome: { status: "pending" | "delivered" | "failed"; at: string; nextAttemptAt?: string; statusCode: number | null; error: string | null },
  ): Promise<void> {
    if (ids.length === 0) return;
    await ex
      .updateTable("notification_deliveries")
      .set((eb) => ({
        status: outcome.status,
        attempts: eb("attempts", "+", 1),
        last_attempt_at: outcome.at,
        ...(outcome.nextAttemptAt === undefined ? {} : { next_attempt_at: outcome.nextAttemptAt }),
        last_status_code: outcome.statusCode,
        last_error: outcome.error,
        lease_until: null,
        delivered_at: outcome.status === "delivered" ? outcome.at : null,
      }))
      .where("id", "in", ids)
      .execute();
  },

  /** A channel's delivery log, newest first, after the row `before` when given. */
  async channelDeliveries(ex: Executor, organizationId: string, teamId: string, channelId: string, limit: number, before?: number): Promise<DeliveryRow[]> {
    return (await ex
      .selectFrom("notification_deliveries")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("target", "=", channelTarget(teamId, channelId))
      .$if(before !== undefined, (qb) => qb.where("row_id", "<", before!))
      .orderBy("row_id", "desc")
      .limit(limit)
      .execute()) as DeliveryRow[];
  },

  /** Queues a delivery again, due now, whatever became of it. */
  async redeliver(ex: Executor, organizationId: string, target: string, id: string, now: string): Promise<boolean> {
    const result = await ex
      .updateTable("notification_deliveries")
      .set({ status: "pending", next_attempt_at: now, lease_until: null, created_at: now })
      .where("organization_id", "=", organizationId)
      .where("target", "=", target)
      .where("id", "=", id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async delivery(ex: Executor, organizationId: string, target: string, id: string): Promise<DeliveryRow | undefined> {
    return (await ex.selectFrom("notification_deliveries").selectAll().where("organization_id", "=", organizationId).where("target", "=", target).where("id", "=", id).executeTakeFirst()) as DeliveryRow | undefined;
  },
};

/** 19 columns a row: 50 rows stay under SQLite's and PostgreSQL's limits on parameters. */
const ROWS_PER_INSERT = 50;

/** As people's addresses are stored: trimmed, lower case (one account per address). */
const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const channelTarget = (teamId: string, channelId: string) => `channel:${teamId}/${channelId}`;
export const emailTarget = (userId: string) => `email:${userId}`;
