import { randomBytes } from "node:crypto";
import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { OutboundPolicy } from "../../platform/outbound.js";
import { checkDestination, OutboundError } from "../../platform/outbound.js";
import type { Database } from "../../platform/database/index.js";
import { conflict, invalid, notFound, Problem } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import { channelTarget, notificationRepository as repo, type ChannelRow, type DeliveryRow } from "../../notifications/repository.js";
import { checkEmail } from "../people/addresses.js";
import type { Delivery, NotificationChannel, NotificationChannelInput } from "./shapes.js";

/** Channels one team may have. */
export const MAX_CHANNELS_PER_TEAM = 50;

/** A new Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The use cases of team notification channels (docs/notifications.md). */
export class NotificationChannelService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly outbound: OutboundPolicy,
  ) {}

  async list(p: Principal, teamId: string): Promise<NotificationChannel[]> {
    await this.team(p, teamId);
    return (await repo.listChannels(this.database.db, p.organizationId, teamId)).map((row) => present(row));
  }

  async get(p: Principal, teamId: string, id: string): Promise<NotificationChannel> {
    return present(await this.channel(p, teamId, id));
  }

  /** Adds or replaces a channel; the answer carries a webhook's secret when this call made it. */
  async put(p: Principal, teamId: string, id: string, input: NotificationChannelInput): Promise<{ channel: NotificationChannel; created: boolean }> {
    if (input.id !== undefined && input.id !== id) {
      throw invalid(`The body's id must equal the id in the path ('${id}') or be absent.`, [{ field: "id", message: `must equal '${id}' or be absent` }]);
    }
    await this.team(p, teamId);
    const { endpoint, addresses } = await this.checkTarget(input);
    return this.database.db.transaction().execute(async (trx) => {
      const existing = await repo.getChannel(trx, p.organizationId, teamId, id);
      const now = this.clock.now().toISOString();
      const secret = input.type === "webhook" ? (existing?.secret ?? newWebhookSecret()) : null;
      const row: ChannelRow = {
        organization_id: p.organizationId,
        team_id: teamId,
        id,
        name: input.name,
        type: input.type,
        endpoint,
        addresses: addresses ? JSON.stringify(addresses) : null,
        enabled: input.enabled === false ? 0 : 1,
        secret,
        created_at: existing?.created_at ?? now,
        updated_at: now,
      };
      // A channel that becomes a webhook gets its secret now; one that was a webhook keeps its own.
      if (existing) await repo.updateChannel(trx, row);
      else {
        if ((await repo.countChannels(trx, p.organizationId, teamId)) >= MAX_CHANNELS_PER_TEAM) {
          throw conflict(`Team '${teamId}' has ${MAX_CHANNELS_PER_TEAM} notification channels already, the most it may have.`);
        }
        await repo.insertChannel(trx, row);
      }
      const shown = secret !== null && secret !== existing?.secret ? secret : undefined;
      return { channel: present(row, shown), created: existing === undefined };
    });
  }

  async delete(p: Principal, teamId: string, id: string): Promise<void> {
    await this.channel(p, teamId, id);
    await this.database.db.transaction().execute((trx) => repo.deleteChannel(trx, p.organizationId, teamId, id));
  }

  /** The channel's delivery log, newest first. */
  async deliveries(p: Principal, teamId: string, id: string, limit: number, before?: string): Promise<Delivery[]> {
    await this.channel(p, teamId, id);
    let beforeRow: number | undefined;
    if (before !== undefined) {
      const row = await repo.delivery(this.database.db, p.organizationId, channelTarget(teamId, id), before);
      if (!row) throw notFound("Delivery", before);
      beforeRow = row.row_id;
    }
    return (await repo.channelDeliveries(this.database.db, p.organizationId, teamId, id, limit, beforeRow)).map(presentDelivery);
  }

  /** Queues a delivery again, due now. */
  async redeliver(p: Principal, teamId: string, id: string, deliveryId: string): Promise<Delivery> {
    await this.channel(p, teamId, id);
    const target = channelTarget(teamId, id);
    if (!(await repo.redeliver(this.database.db, p.organizationId, target, deliveryId, this.clock.now().toISOString()))) throw notFound("Delivery", deliveryId);
    return presentDelivery((await repo.delivery(this.database.db, p.organizationId, target, deliveryId))!);
  }

  private async team(p: Principal, teamId: string): Promise<void> {
    if (!(await repo.teamExists(this.database.db, p.organizationId, teamId))) throw notFound("Team", teamId);
    policy.manageNotificationChannels(p, teamId);
  }

  private async channel(p: Principal, teamId: string, id: string): Promise<ChannelRow> {
    await this.team(p, teamId);
    const row = await repo.getChannel(this.database.db, p.organizationId, teamId, id);
    if (!row) throw notFound("Notification channel", id);
    return row;
  }

  /** An endpoint Steward may reach, or addresses that are e-mail addresses, as the type needs. */
  private async checkTarget(input: NotificationChannelInput): Promise<{ endpoint: string | null; addresses: string[] | null }> {
    if (input.type === "email") {
      if (!input.addresses) throw invalid("An email channel needs its addresses.", [{ field: "addresses", message: "is required for type email" }]);
      if (input.endpoint !== undefined) throw invalid("An email channel has addresses, not an endpoint.", [{ field: "endpoint", message: "must be absent for type email" }]);
      const addresses = input.addresses.map((address, i) => {
        try {
          return checkEmail(address, `addresses[${i}]`);
        } catch (error) {
          if (error instanceof Problem) throw invalid(`addresses[${i}] is not an e-mail address.`, [{ field: `addresses[${i}]`, message: "must be an email address" }]);
          throw error;
        }
      });
      return { endpoint: null, addresses: [...new Set(addresses)] };
    }
    if (input.addresses !== undefined) throw invalid(`A ${input.type} channel has an endpoint, not addresses.`, [{ field: "addresses", message: `must be absent for type ${input.type}` }]);
    if (!input.endpoint) throw invalid(`A ${input.type} channel needs its endpoint.`, [{ field: "endpoint", message: `is required for type ${input.type}` }]);
    try {
      await checkDestination(input.endpoint, this.outbound);
    } catch (error) {
      if (error instanceof OutboundError) throw invalid(`The endpoint cannot be used: ${error.message}`, [{ field: "endpoint", message: error.message }]);
      throw error;
    }
    return { endpoint: input.endpoint, addresses: null };
  }
}

function present(row: ChannelRow, secret?: string): NotificationChannel {
  return {
    id: row.id,
    name: row.name,
    type: row.type as NotificationChannel["type"],
    ...(row.endpoint !== null ? { endpoint: row.endpoint } : {}),
    ...(row.addresses !== null ? { addresses: JSON.parse(row.addresses) as string[] } : {}),
    enabled: row.enabled === 1,
    ...(secret !== undefined ? { secret } : {}),
  };
}

function presentDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    eventId: row.event_id,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.status === "pending" ? row.next_attempt_at : null,
    deliveredAt: row.delivered_at,
  };
}
