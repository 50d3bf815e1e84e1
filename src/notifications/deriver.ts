import { v7 as uuidv7 } from "uuid";
import { eventRepository, type EventRow } from "../events/repository.js";
import { accessRepository } from "../modules/access/repository.js";
import { principalNames } from "../modules/people/principal-names.js";
import type { Database, Executor } from "../platform/database/index.js";
import { audienceRepository as audience, consumerUserId } from "./audience-repository.js";
import { composeMessage, detailOf, type Message } from "./messages.js";
import { inboxRepository as inbox } from "./inbox-repository.js";
import { channelTarget, emailTarget, notificationRepository as repo, type DeliveryRow, type NotificationRow } from "./repository.js";
import { ENDING_SOON_DAYS, peopleFor, REMINDERS, remindersDue, resourceOf, rulesFor, teamsFor, writerSide, type Facts, type NotificationKind, type Rule } from "./rules.js";
import { SYSTEM_NAME } from "../modules/people/principal-names.js";

/**
 * Events read per organization and transaction. Small enough that a step's transaction is short:
 * on SQLite it holds the one writer's lock, which the API's writes wait for.
 */
const EVENTS_PER_STEP = 50;

/** Yields to the event loop: requests waiting get their turn between two steps. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

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

  /**
   * Derives everything committed so far; answers how many events were read. `stepped` is told
   * after each transaction that derived events, so that delivery need not wait for a long
   * backlog to be derived to its end.
   */
  async pass(shouldStop: () => boolean = () => false, stepped: () => void = () => undefined): Promise<number> {
    let read = 0;
    const organizations = await repo.organizationsBehind(this.database.db, 1000);
    for (const organizationId of organizations) {
      for (;;) {
        if (shouldStop()) return read;
        const step = await this.step(organizationId);
        read += step;
        if (step > 0) stepped();
        if (step < EVENTS_PER_STEP) break;
        await yieldToRequests();
      }
    }
    return read;
  }

  /** One transaction: the next events of one organization, or none when another process holds its cursor. */
  async step(organizationId: string): Promise<number> {
    this.memo = new Map();
    try {
      return await this.stepIn(organizationId);
    } finally {
      this.memo = undefined;
    }
  }

  /**
   * What a step read once, by key: channels, members and settings hardly differ from one event to
   * the next of a backlog. Lives for one transaction, so it never outlasts what it read.
   */
  private memo?: Map<string, Promise<unknown>>;

  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (!this.memo) return load();
    let found = this.memo.get(key) as Promise<T> | undefined;
    if (!found) this.memo.set(key, (found = load()));
    return found;
  }

  private async stepIn(organizationId: string): Promise<number> {
    return this.database.db.transaction().execute(async (trx) => {
      const last = await repo.lockCursor(trx, this.database.dialect, organizationId);
      if (last === undefined) return 0;
      const rows = await eventRepository.readAfter(trx, organizationId, last, EVENTS_PER_STEP);
      if (rows.length === 0) return 0;
      const deliveries: Array<Omit<DeliveryRow, "row_id">> = [];
      const notifications: Array<Omit<NotificationRow, "row_id">> = [];
      for (const row of rows) await this.derive(trx, organizationId, row, deliveries, notifications);
      await repo.insertDeliveries(trx, deliveries);
      await inbox.insertNotifications(trx, notifications);
      await repo.setCursor(trx, organizationId, rows[rows.length - 1].seq);
      return rows.length;
    });
  }

  private async derive(trx: Executor, organizationId: string, row: EventRow, deliveries: Array<Omit<DeliveryRow, "row_id">>, notifications: Array<Omit<NotificationRow, "row_id">>) {
    const data = JSON.parse(row.data) as Record<string, unknown>;
    const rules = rulesFor(row.kind, data);
    if (rules.length === 0) return;
    const names = await this.once(`name:${row.principal}`, () => principalNames(trx, organizationId, [row.principal]));
    for (const rule of rules) {
      const { facts, access } = await this.facts(trx, organizationId, rule, row, data);
      const teams = teamsFor(rule, facts);
      const people = peopleFor(rule, facts);
      if (teams.length === 0 && people.length === 0) continue;
      const message = composeMessage({
        kind: rule.kind,
        subject: row.subject,
        actor: names.get(row.principal) ?? row.principal,
        comment: row.comment,
        appUrl: this.options.appUrl,
        time: row.time,
        eventId: row.id,
        event: this.options.render(row),
        access,
        resource: resourceOf(row.kind),
        eventKind: row.kind,
        detail: detailOf(rule.kind, data),
      });
      await this.fanOut(trx, organizationId, { kind: rule.kind, teams, people, message, eventId: row.id, seq: row.seq, principal: row.principal, webhooks: true }, deliveries, notifications);
    }
  }

  /**
   * Reminders from the calendar (an access ending within a week, a reassessment due): each once
   * per access, kind and date, however often this runs and in however many processes, because
   * its id is made of the three and both tables keep one row per target and id.
   */
  async reminders(): Promise<number> {
    const now = this.now();
    const until = new Date(now.getTime() + ENDING_SOON_DAYS * 24 * 60 * 60 * 1000).toISOString();
    let after = 0;
    let queued = 0;
    for (;;) {
      const candidates = await repo.reminderCandidates(this.database.db, now.toISOString(), until, after, 200);
      for (const access of candidates) {
        after = Math.max(after, Number(access.row_id));
        const info = ((JSON.parse(access.doc) as { info?: { nextReassessmentDate?: unknown } }).info ?? {}) as { nextReassessmentDate?: unknown };
        const reassess = typeof info.nextReassessmentDate === "string" ? info.nextReassessmentDate : null;
        for (const due of remindersDue({ endAt: access.end_at, nextReassessmentDate: reassess }, now)) {
          const rule = REMINDERS[due.kind];
          const teams = teamsFor(rule, { providerTeamId: access.provider_team_id, consumerTeamId: access.consumer_team_id });
          const userId = access.consumer_type === "user" ? consumerUserId(access.doc) : null;
          const member = userId === null ? undefined : await audience.member(this.database.db, access.organization_id, userId);
          const people = peopleFor(rule, { consumerUserId: member ?? null });
          if (teams.length === 0 && people.length === 0) continue;
          const eventId = `${due.kind}:${access.id}:${due.date}`;
          const message = composeMessage({
            kind: due.kind,
            subject: access.id,
            actor: SYSTEM_NAME,
            comment: null,
            appUrl: this.options.appUrl,
            time: now.toISOString(),
            eventId,
            event: {},
            date: due.date,
            access: { providerDataProductId: access.provider_data_product_id, providerOutputPortId: access.provider_output_port_id, consumer: consumerName(access) },
          });
          await this.database.db.transaction().execute(async (trx) => {
            const deliveries: Array<Omit<DeliveryRow, "row_id">> = [];
            const notifications: Array<Omit<NotificationRow, "row_id">> = [];
            await this.fanOut(trx, access.organization_id, { kind: due.kind, teams, people, message, eventId, seq: 0, principal: "system", webhooks: false }, deliveries, notifications);
            await repo.insertDeliveries(trx, deliveries);
            await inbox.insertNotifications(trx, notifications);
            queued += deliveries.length + notifications.length;
          });
        }
      }
      if (candidates.length < 200) return queued;
    }
  }

  /** The deliveries and in-app notifications of one message to `teams`: their channels and people. */
  private async fanOut(
    trx: Executor,
    organizationId: string,
    n: { kind: NotificationKind; teams: string[]; people?: string[]; message: Message; eventId: string; seq: number; principal: string; webhooks: boolean },
    deliveries: Array<Omit<DeliveryRow, "row_id">>,
    notifications: Array<Omit<NotificationRow, "row_id">>,
  ): Promise<void> {
    const { kind: ruleKind, teams, message, principal } = n;
    const row = { id: n.eventId, seq: n.seq, principal };
    const rule = { kind: ruleKind };
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
    for (const channel of await this.once(`channels:${JSON.stringify(teams)}`, () => repo.enabledChannels(trx, organizationId, teams))) {
      // A webhook receives the event log's CloudEvents, and a reminder is no event.
      if (channel.type === "webhook" && !n.webhooks) continue;
      queue(channelTarget(channel.team_id, channel.id), { team_id: channel.team_id, channel_id: channel.id, user_id: null });
    }
    const people = new Map<string, string>();
    for (const team of teams) for (const person of await this.once(`people:${team}`, () => repo.teamPeople(trx, organizationId, team))) people.set(person.id, person.email);
    // Persons who consume an access themselves hear of it as its team's members do.
    for (const userId of n.people ?? []) people.set(userId, "");
    for (const userId of people.keys()) {
      // Whoever acted knows already.
      if (row.principal === `user:${userId}`) continue;
      if ((await this.once(`disabled:${userId}`, () => inbox.disabledKinds(trx, organizationId, userId))).includes(rule.kind)) continue;
      notifications.push({ id: uuidv7(), organization_id: organizationId, user_id: userId, event_id: row.id, kind: rule.kind, message: text, created_at: now, read_at: null });
      if (this.options.mail) queue(emailTarget(userId), { team_id: null, channel_id: null, user_id: userId });
    }
  }

  private member(trx: Executor, organizationId: string, userId: string): Promise<string | undefined> {
    return this.once(`member:${userId}`, () => audience.member(trx, organizationId, userId));
  }

  /** What the rule's audience needs to know, read in the derivation's transaction. */
  private async facts(
    trx: Executor,
    organizationId: string,
    rule: Rule,
    event: Pick<EventRow, "kind" | "subject" | "time">,
    data: Record<string, unknown>,
  ): Promise<{ facts: Facts; access?: { providerDataProductId: string; providerOutputPortId: string; consumer: string } }> {
    const { kind: eventKind, subject } = event;
    if (rule.audience.includes("contractConsumers")) {
      // Whom the change breaks: the accesses the contract's gate counts (docs/versions.md), as they stood when it happened.
      const accesses = await accessRepository.approvedUnderContract(trx, organizationId, subject, event.time, 1000);
      const teams = [...new Set(accesses.map((a) => a.consumerTeamId).filter((t): t is string => t !== null))].sort();
      const users = [...new Set(accesses.map((a) => (a.consumerType === "user" ? (a.doc.consumer as { userId?: unknown } | undefined)?.userId : undefined)).filter((u): u is string => typeof u === "string" && u !== ""))];
      const members = (await Promise.all(users.map((u) => this.member(trx, organizationId, u)))).filter((m): m is string => m !== undefined);
      return { facts: { contractConsumerTeamIds: teams, contractConsumerUserIds: members } };
    }
    const resource = resourceOf(eventKind);
    if (resource !== "access") {
      // A document's change with a warning goes to its owner; a read without an access to the port's product's owner.
      const owner = await audience.ownerTeam(trx, organizationId, resource === "dataContract" ? "datacontract" : "dataproduct", subject);
      return { facts: { writerTeamId: owner, providerTeamId: owner } };
    }
    const access = await repo.access(trx, organizationId, subject);
    if (!access) return { facts: {} };
    const consumer = consumerName(access);
    const userId = access.consumer_type === "user" ? consumerUserId(access.doc) : null;
    const held = rule.audience.includes("approvers") ? heldPolicyIds(data) : [];
    const side = writerSide(eventKind);
    return {
      facts: {
        providerTeamId: access.provider_team_id,
        consumerTeamId: access.consumer_team_id,
        consumerUserId: userId === null ? null : ((await this.member(trx, organizationId, userId)) ?? null),
        approverTeamIds: held.length === 0 ? [] : await this.once(`eligible:${JSON.stringify(held)}`, () => audience.eligibleTeams(trx, organizationId, held)),
        writerTeamId: side === "consumer" ? access.consumer_team_id : access.provider_team_id,
      },
      access: { providerDataProductId: access.provider_data_product_id, providerOutputPortId: access.provider_output_port_id, consumer },
    };
  }
}

/** The policies whose require-approvals verdicts an event carries. */
function heldPolicyIds(data: Record<string, unknown>): string[] {
  const verdicts = (Array.isArray(data.verdicts) ? data.verdicts : []) as Array<{ policyId?: unknown; effect?: unknown }>;
  return verdicts.filter((v) => v && v.effect === "require-approvals" && typeof v.policyId === "string").map((v) => v.policyId as string);
}

/** The consumer side of an access, in words. */
function consumerName(access: { consumer_type: string; consumer_data_product_id: string | null; consumer_team_id: string | null; doc?: string }): string {
  if (access.consumer_type === "dataProduct" && access.consumer_data_product_id) return `data product '${access.consumer_data_product_id}'`;
  const user = access.consumer_type === "user" && access.doc !== undefined ? consumerUserId(access.doc) : null;
  if (user !== null) return `'${user}'`;
  return access.consumer_team_id ? `team '${access.consumer_team_id}'` : "its consumer";
}
