import type { FastifyBaseLogger } from "fastify";
import type { NotifyConfig } from "../platform/config.js";
import type { Database } from "../platform/database/index.js";
import type { Agent } from "node:http";
import { keptAliveAgent, OutboundError, outboundRequest, type OutboundPolicy } from "../platform/outbound.js";
import { nextAttemptAt } from "./backoff.js";
import { HTTP_FORMATS, mailMessage, webhookSigner, type HttpChannelType, type HttpDelivery, type WebhookSigner } from "./formats.js";
import { MailError, type Mailer } from "./mailer.js";
import type { Message } from "./messages.js";
import { notificationRepository as repo, type ChannelRow, type DeliveryRow } from "./repository.js";

/**
 * Deliveries of one target leased together and attempted in a row in one place (a run): one
 * lease, one read of the channel and one transaction recording the outcomes serve them all.
 */
const RUN = 100;

/** Runs of one target attempted in a row in one place before it goes back to the others. */
const CHAINED_RUNS = 2;

/** How long a channel read for a run is trusted before it is read again (a channel changed or removed is seen this late at most). */
const CHANNEL_FRESH_MS = 1_000;

/** Origins whose connections are kept open at once; the least recently used one is closed past this. */
const KEPT_ORIGINS = 256;

/** Yields to the event loop: requests waiting get their turn between two looks for due deliveries. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A run's receiver as last read: a person's address, or a channel (none: it no longer exists) and its signer. */
interface Receiver {
  readAt: number;
  email?: string | null;
  channel?: ChannelRow | null;
  signer?: WebhookSigner;
}

/** An attempt's outcome as recorded; those of a run with the same one are recorded together, at the time of the last. */
interface Recorded {
  status: "pending" | "delivered" | "failed";
  at: string;
  statusCode: number | null;
  error: string | null;
}

/** What one attempt came to. */
interface Outcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** Nothing to retry: the channel is gone or can no longer receive. */
  final?: boolean;
}

/**
 * Attempts due deliveries (docs/notifications.md). Each is leased in the database before it is
 * attempted, so one process attempts it at a time; only the oldest pending delivery of a target
 * is due, so each target receives in event order. Attempts run side by side up to
 * `concurrency`: a slow receiver holds one place for at most its timeout, never the others.
 */
export class Deliverer {
  private inFlight = 0;
  private pumping?: Promise<void>;
  private stopped = false;
  private readonly settled = new Set<Promise<void>>();
  /** Kept-alive connections by origin (docs/security.md, "Outgoing requests"): each new one is checked as it is made. */
  private readonly agents = new Map<string, Agent>();

  constructor(
    private readonly database: Database,
    private readonly settings: NotifyConfig,
    private readonly policy: OutboundPolicy,
    private readonly mailer: Mailer | undefined,
    private readonly now: () => Date,
  ) {}

  /** Where failures to record an attempt are logged, once the process has a log. */
  logger?: FastifyBaseLogger;

  /**
   * Starts what is due now, as far as there are free places. A call while a run is under way makes
   * that run look once more when it ends: what became due during its last look is not left for
   * the next poll.
   */
  pump(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    const run = async () => {
      try {
        do {
          this.again = false;
          await this.fill();
        } while (this.again && !this.stopped);
      } finally {
        // In the same step as the last check of `again`: a call in between cannot be lost.
        this.pumping = undefined;
      }
    };
    this.pumping = run();
    return this.pumping;
  }

  private again = false;

  /** Stops starting attempts and waits for those under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.pumping;
    await Promise.allSettled([...this.settled]);
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  /** The agent for an endpoint's origin, most recently used last; none for what is no URL (refused later). */
  private agentFor(endpoint: string): Agent | undefined {
    let origin: URL;
    try {
      origin = new URL(endpoint);
    } catch {
      return undefined;
    }
    const key = origin.origin;
    let agent = this.agents.get(key);
    if (agent) this.agents.delete(key);
    else agent = keptAliveAgent(origin.protocol);
    this.agents.set(key, agent);
    if (this.agents.size > KEPT_ORIGINS) {
      const [oldest, closing] = this.agents.entries().next().value as [string, Agent];
      this.agents.delete(oldest);
      closing.destroy();
    }
    return agent;
  }

  /** Waits until the attempts under way now have ended (tests). */
  async idle(): Promise<void> {
    await this.pumping;
    await Promise.allSettled([...this.settled]);
  }

  private async fill(): Promise<void> {
    while (!this.stopped && this.inFlight < this.settings.concurrency) {
      const heads = await repo.dueHeads(this.database.db, this.now().toISOString(), this.settings.concurrency - this.inFlight);
      let started = 0;
      for (const head of heads) {
        // Each lease commits (on SQLite, a write to disk): requests waiting get their turn between two.
        await yieldToRequests();
        if (this.stopped) return;
        const now = this.now();
        const until = now.getTime() + this.settings.leaseMs;
        const run = await this.database.db.transaction().execute((trx) => repo.leaseRun(trx, head.target, now.toISOString(), new Date(until).toISOString(), RUN));
        if (run.length === 0) continue;
        started++;
        this.start(run, until, 0);
      }
      if (started === 0) return;
    }
  }

  /**
   * Attempts a leased run of one target in one of the places, in event order. When it was
   * delivered whole, its target's next run, if due, is leased in the transaction that records it
   * and follows in the same place, up to `CHAINED_RUNS` in a row before the place goes back to the
   * other targets.
   */
  private start(run: DeliveryRow[], leasedUntil: number, chained: number): void {
    this.inFlight++;
    const attempt: Promise<void> = this.attemptRun(run, leasedUntil, chained + 1 < CHAINED_RUNS)
      .then((next) => {
        this.inFlight--;
        if (next && !this.stopped) {
          this.start(next.run, next.leasedUntil, chained + 1);
          return;
        }
        if (next) void repo.release(this.database.db, [next.run[0].id]).catch(() => undefined);
        // Its target's next deliveries, or another target's, may be due now.
        if (!this.stopped) this.pump().catch((error) => this.logger?.error({ err: error }, "looking for due notifications failed; the next pass retries"));
      })
      .catch((error) => {
        this.inFlight--;
        this.logger?.error({ err: error, delivery: run[0].id }, "notification delivery failed to record");
      })
      .finally(() => this.settled.delete(attempt));
    this.settled.add(attempt);
  }

  /**
   * Attempts a run's deliveries one after the other until one is to be retried later (it stays
   * its target's head: nothing of the target follows it now), the process stops, or the lease has
   * no room left for one more attempt within its timeout; then, in one transaction, records every
   * outcome and, with `chain` when the whole run was attempted and none is to be retried, leases
   * the target's next run. The head stays leased and pending until then: no other process starts
   * on the target meanwhile.
   */
  private async attemptRun(run: DeliveryRow[], leasedUntil: number, chain: boolean): Promise<{ run: DeliveryRow[]; leasedUntil: number } | undefined> {
    const ended = new Map<string, Recorded & { ids: string[] }>();
    let retry: (Recorded & { id: string; nextAttemptAt: string }) | undefined;
    let receiver: Receiver | undefined;
    let attempted = 0;
    for (const delivery of run) {
      if (attempted > 0 && (this.stopped || this.now().getTime() + this.settings.timeoutMs >= leasedUntil)) break;
      attempted++;
      const outcome = await this.receiverFor(delivery, receiver)
        .then((found) => this.send(delivery, (receiver = found)))
        .catch((error: unknown): Outcome => ({ ok: false, statusCode: null, error: describe(error) }));
      const at = this.now();
      const next = outcome.ok || outcome.final ? undefined : nextAttemptAt(new Date(delivery.created_at), at, delivery.attempts + 1, this.settings.retryBaseMs, this.settings.retryWindowMs);
      const error = outcome.ok ? null : outcome.error;
      if (next) {
        retry = { id: delivery.id, status: "pending", at: at.toISOString(), nextAttemptAt: next.toISOString(), statusCode: outcome.statusCode, error };
        break;
      }
      const status = outcome.ok ? "delivered" : "failed";
      const key = `${status} ${outcome.statusCode} ${error}`;
      const group = ended.get(key);
      if (group) {
        group.ids.push(delivery.id);
        group.at = at.toISOString();
      } else ended.set(key, { ids: [delivery.id], status, at: at.toISOString(), statusCode: outcome.statusCode, error });
    }
    const follow = chain && !retry && attempted === run.length && !this.stopped;
    return this.database.db.transaction().execute(async (trx) => {
      for (const { ids, ...outcome } of ended.values()) await repo.recordAttempts(trx, ids, outcome);
      if (retry) await repo.recordAttempts(trx, [retry.id], retry);
      if (!follow) return undefined;
      const now = this.now();
      const until = now.getTime() + this.settings.leaseMs;
      const next = await repo.leaseRun(trx, run[0].target, now.toISOString(), new Date(until).toISOString(), RUN);
      return next.length > 0 ? { run: next, leasedUntil: until } : undefined;
    });
  }

  /**
   * Where a run's deliveries go: read for its first delivery and again when older than
   * `CHANNEL_FRESH_MS`, so a run does not read its channel (and secret) for every delivery.
   */
  private async receiverFor(delivery: DeliveryRow, known: Receiver | undefined): Promise<Receiver> {
    const now = performance.now();
    if (known && now - known.readAt < CHANNEL_FRESH_MS) return known;
    if (delivery.user_id !== null) return { readAt: now, email: (await repo.userEmail(this.database.db, delivery.user_id)) ?? null };
    const channel = await repo.getChannel(this.database.db, delivery.organization_id, delivery.team_id ?? "", delivery.channel_id ?? "");
    return { readAt: now, channel: channel ?? null, signer: channel?.type === "webhook" ? webhookSigner(channel.secret ?? "") : undefined };
  }

  private async send(delivery: DeliveryRow, receiver: Receiver): Promise<Outcome> {
    const message = JSON.parse(delivery.message) as Message;
    if (receiver.email !== undefined) {
      if (!receiver.email) return { ok: false, statusCode: null, error: "The person no longer exists.", final: true };
      return this.mail([receiver.email], message);
    }
    const channel = receiver.channel;
    if (!channel) return { ok: false, statusCode: null, error: "The channel no longer exists.", final: true };
    if (!channel.enabled) return { ok: false, statusCode: null, error: "The channel was disabled before delivery.", final: true };
    if (channel.type === "email") return this.mail(JSON.parse(channel.addresses ?? "[]") as string[], message);
    const request: HttpDelivery = receiver.signer ? receiver.signer(message, delivery.id, this.now()) : HTTP_FORMATS[channel.type as HttpChannelType](message);
    const answer = await outboundRequest(channel.endpoint ?? "", this.policy, {
      method: "POST",
      headers: { ...request.headers, "user-agent": "Steward-Notifications" },
      body: request.body,
      connectTimeoutMs: Math.max(50, Math.floor(this.settings.timeoutMs / 2)),
      timeoutMs: this.settings.timeoutMs,
      maxResponseBytes: 16 * 1024,
      agent: this.agentFor(channel.endpoint ?? ""),
    });
    if (answer.status >= 200 && answer.status < 300) return { ok: true, statusCode: answer.status, error: null };
    const redirect = answer.status >= 300 && answer.status < 400 ? " Redirects are not followed." : "";
    return { ok: false, statusCode: answer.status, error: `The receiver answered ${answer.status}.${redirect}` };
  }

  private async mail(to: string[], message: Message): Promise<Outcome> {
    if (!this.mailer) return { ok: false, statusCode: null, error: "E-mail is off: SMTP_URL and SMTP_FROM are not set.", final: true };
    if (to.length === 0) return { ok: false, statusCode: null, error: "The channel has no addresses.", final: true };
    await this.mailer.send(to, mailMessage(message));
    return { ok: true, statusCode: null, error: null };
  }
}

/** An error in words fit for a delivery log: never a URL, a secret or a stack. */
function describe(error: unknown): string {
  if (error instanceof OutboundError || error instanceof MailError) return error.message;
  return "The delivery failed unexpectedly.";
}
