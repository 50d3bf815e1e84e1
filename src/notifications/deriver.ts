import { v7 as uuidv7 } from "uuid";
import { eventRepository, type EventRow } from "../events/repository.js";
import { principalNames } from "../events/principal-names.js";
import type { Database, Executor } from "../platform/database/index.js";
import { composeMessage, type Message } from "./messages.js";
import { channelTarget, emailTarget, notificationRepository as repo, type DeliveryRow, type NotificationRow } from "./repository.js";
import { ruleFor, teamsFor, type Facts, type Rule } from "./rules.js";

/** Events read per organization and transaction. */
const EVENTS_PER_STEP = 200;

export interface DeriverOptions {
  appUrl: string;
  /** Whether personal e-mail is on (SMTP configured). */
  mail: boolean;
  /** The event as a CloudEvent, as the feed renders it. */
  render: (row: EventRow) => Record<string, unknown>;
}

/**
 * Turns committed events into notifications (docs/notifications.md): for each organization a
 * cursor in the database says how far it got; the deliveries and in-app notifications an event
 * causes are written in the same transaction that moves the cursor past it, so each event is
 * derived exactly once, whatever process does it and whenever one dies.
 */
export class Deriver {
  constructor(
    private readonly database: Database,
    private readonly options: DeriverOptions,
    private readonly now: () => Date,
  ) {}

  /** Derives everything committed so far; answers how many events were read. */
  async pass(shouldStop: () => boolean = () => false): Promise<number> {
    let read = 0;
    const organizations = await repo.organizationsBehind(this.database.db, 1000);
    for (const organizationId of organizations) {
      for (;;) {
        if (shouldStop()) return read;
        const step = await this.step(organizationId);
        read += step;
        if (step < EVENTS_PER_STEP) break;
      }
    }
    return read;
  }

  /** One transaction: the next events of one organization, or none when another process holds its cursor. */
  async step(organizationId: string): Promise<number> {
    return this.database.db.transaction().execute(async (trx) => {
      const last = await repo.lockCursor(trx, this.database.dialect, organizationId);
      if (last === undefined) return 0;
      const rows = await eventRepository.readAfter(trx, organizationId, last, EVENTS_PER_STEP);
      if (rows.length === 0) return 0;
      const deliveries: Array<Omit<DeliveryRow, "row_id">> = [];
      const notifications: Array<Omit<NotificationRow, "row_id">> = [];
      for (const row of rows) await this.derive(trx, organizationId, row, deliveries, notifications);
      await repo.insertDeliveries(trx, deliveries);
      await repo.insertNotifications(trx, notifications);
      await repo.setCursor(trx, organizationId, rows[rows.length - 1].seq);
      return rows.length;
    });
  }

  private async derive(trx: Executor, organizationId: string, row: EventRow, deliveries: Array<Omit<DeliveryRow, "row_id">>, notifications: Array<Omit<NotificationRow, "row_id">>) {
    const data = JSON.parse(row.data) as Record<string, unknown>;
    const rule = ruleFor(row.kind, data);
    if (!rule) return;
    const { facts, access } = await this.facts(trx, organizationId, rule, row.subject);
    const teams = teamsFor(rule, facts);
    if (teams.length === 0) return;
    const names = await principalNames(trx, organizationId, [row.principal]);
    const message: Message = composeMessage({
      kind: rule.kind,
      subject: row.subject,
      actor: names.get(row.principal) ?? row.principal,
      comment: row.comment,
      appUrl: this.options.appUrl,
      time: row.time,
      eventId: row.id,
      event: this.options.render(row),
      access,
    });
    const text = JSON.stringify(message);
    const now = this.now().toISOString();
    const queue = (target: string, extra: Pick<DeliveryRow, "team_id" | "channel_id" | "user_id">) =>
      deliveries.push({
        id: uuidv7(),
        organization_id: organizationId,
        target,
        ...extra,
        event_id: row.id,
        event_seq: row.seq,
        kind: rule.kind,
        message: text,
        status: "pending",
        attempts: 0,
        next_attempt_at: now,
        lease_until: null,
        last_status_code: null,
        last_error: null,
        created_at: now,
        last_attempt_at: null,
        delivered_at: null,
      });
    for (const channel of await repo.enabledChannels(trx, organizationId, teams)) {
      queue(channelTarget(channel.team_id, channel.id), { team_id: channel.team_id, channel_id: channel.id, user_id: null });
    }
    const people = new Map<string, string>();
    for (const team of teams) for (const person of await repo.teamPeople(trx, organizationId, team)) people.set(person.id, person.email);
    for (const userId of people.keys()) {
      // Whoever acted knows already.
      if (row.principal === `user:${userId}`) continue;
      if ((await repo.disabledKinds(trx, organizationId, userId)).includes(rule.kind)) continue;
      notifications.push({ id: uuidv7(), organization_id: organizationId, user_id: userId, event_id: row.id, kind: rule.kind, message: text, created_at: now, read_at: null });
      if (this.options.mail) queue(emailTarget(userId), { team_id: null, channel_id: null, user_id: userId });
    }
  }

  private async facts(trx: Executor, organizationId: string, rule: Rule, subject: string): Promise<{ facts: Facts; access?: { providerDataProductId: string; providerOutputPortId: string; consumer: string } }> {
    if (rule.audience.includes("contractConsumers")) return { facts: { contractConsumerTeamIds: await repo.contractConsumerTeams(trx, organizationId, subject) } };
    const access = await repo.access(trx, organizationId, subject);
    if (!access) return { facts: {} };
    const consumer =
      access.consumer_type === "dataProduct" && access.consumer_data_product_id
        ? `data product '${access.consumer_data_product_id}'`
        : access.consumer_team_id
          ? `team '${access.consumer_team_id}'`
          : "its consumer";
    return {
      facts: { providerTeamId: access.provider_team_id, consumerTeamId: access.consumer_team_id },
      access: { providerDataProductId: access.provider_data_product_id, providerOutputPortId: access.provider_output_port_id, consumer },
    };
  }
}
