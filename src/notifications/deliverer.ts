import type { FastifyBaseLogger } from "fastify";
import type { NotifyConfig } from "../platform/config.js";
import type { Database } from "../platform/database/index.js";
import type { Agent } from "node:http";
import { keptAliveAgent, OutboundError, outboundRequest, type OutboundPolicy } from "../platform/outbound.js";
import { nextAttemptAt } from "./backoff.js";
import { HTTP_FORMATS, mailMessage, signedWebhook, type HttpChannelType, type HttpDelivery } from "./formats.js";
import { MailError, type Mailer } from "./mailer.js";
import type { Message } from "./messages.js";
import { notificationRepository as repo, type DeliveryRow } from "./repository.js";

/** Deliveries of one target attempted in a row in one place before it goes back to the others. */
const CHAIN = 20;

/** Origins whose connections are kept open at once; the least recently used one is closed past this. */
const KEPT_ORIGINS = 256;

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
      const now = this.now();
      const heads = await repo.dueHeads(this.database.db, now.toISOString(), this.settings.concurrency - this.inFlight);
      let started = 0;
      for (const head of heads) {
        const until = new Date(now.getTime() + this.settings.leaseMs).toISOString();
        if (!(await repo.lease(this.database.db, head.id, now.toISOString(), until))) continue;
        started++;
        this.start(head, 0);
      }
      if (started === 0) return;
    }
  }

  /**
   * Attempts a leased delivery in one of the places; when it settles its target's head and the
   * target's next one is due, that one follows in the same place (leased in the transaction that
   * records the attempt), up to `CHAIN` in a row, so that a target with a backlog does not wait
   * for a look at every target between two of its deliveries, nor hold its place from the others.
   */
  private start(delivery: DeliveryRow, chained: number): void {
    this.inFlight++;
    const attempt: Promise<void> = this.attempt(delivery, chained < CHAIN)
      .then((next) => {
        if (next && !this.stopped) {
          this.inFlight--;
          this.start(next, chained + 1);
          return;
        }
        if (next) void repo.release(this.database.db, next.id).catch(() => undefined);
        this.inFlight--;
        // Its target's next delivery, or another target's, may be due now.
        if (!this.stopped) this.pump().catch((error) => this.logger?.error({ err: error }, "looking for due notifications failed; the next pass retries"));
      })
      .catch((error) => {
        this.inFlight--;
        this.logger?.error({ err: error, delivery: delivery.id }, "notification delivery failed to record");
      })
      .finally(() => this.settled.delete(attempt));
    this.settled.add(attempt);
  }

  /** Attempts a delivery and records what came of it; with `chain`, answers its target's next one, leased, when it is due now. */
  private async attempt(delivery: DeliveryRow, chain: boolean): Promise<DeliveryRow | undefined> {
    const outcome = await this.send(delivery).catch((error: unknown): Outcome => ({ ok: false, statusCode: null, error: describe(error) }));
    const at = this.now();
    const attempts = delivery.attempts + 1;
    const next = outcome.ok || outcome.final ? undefined : nextAttemptAt(new Date(delivery.created_at), at, attempts, this.settings.retryBaseMs, this.settings.retryWindowMs);
    const status = outcome.ok ? "delivered" : next ? "pending" : "failed";
    const recorded = {
      status,
      attempts,
      at: at.toISOString(),
      nextAttemptAt: outcome.ok ? delivery.next_attempt_at : (next ?? at).toISOString(),
      statusCode: outcome.statusCode,
      error: outcome.ok ? null : outcome.error,
    } as const;
    // Still pending, it stays its target's head: nothing of the target follows it now.
    if (!chain || status === "pending") {
      await repo.recordAttempt(this.database.db, delivery.id, recorded);
      return undefined;
    }
    return this.database.db.transaction().execute(async (trx) => {
      await repo.recordAttempt(trx, delivery.id, recorded);
      const head = await repo.headOf(trx, delivery.target);
      const now = at.toISOString();
      if (!head || head.next_attempt_at > now) return undefined;
      const until = new Date(at.getTime() + this.settings.leaseMs).toISOString();
      return (await repo.lease(trx, head.id, now, until)) ? { ...head, lease_until: until } : undefined;
    });
  }

  private async send(delivery: DeliveryRow): Promise<Outcome> {
    const message = JSON.parse(delivery.message) as Message;
    if (delivery.user_id !== null) {
      const email = await repo.userEmail(this.database.db, delivery.user_id);
      if (!email) return { ok: false, statusCode: null, error: "The person no longer exists.", final: true };
      return this.mail([email], message);
    }
    const channel = await repo.getChannel(this.database.db, delivery.organization_id, delivery.team_id ?? "", delivery.channel_id ?? "");
    if (!channel) return { ok: false, statusCode: null, error: "The channel no longer exists.", final: true };
    if (!channel.enabled) return { ok: false, statusCode: null, error: "The channel was disabled before delivery.", final: true };
    if (channel.type === "email") return this.mail(JSON.parse(channel.addresses ?? "[]") as string[], message);
    const request: HttpDelivery =
      channel.type === "webhook" ? signedWebhook(message, channel.secret ?? "", delivery.id, this.now()) : HTTP_FORMATS[channel.type as HttpChannelType](message);
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
