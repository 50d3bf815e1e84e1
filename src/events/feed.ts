import type { EventLog } from "./log.js";
import { tooManyRequests } from "../platform/errors.js";
import { ReadAhead } from "./engine/read-ahead.js";
import type { RenderedBatch } from "./repository.js";

export interface FeedRequest {
  organizationId: string;
  lastEventId?: string;
  longPolling: boolean;
}

/**
 * Reads the feed, holding a long poll until an event of the organization commits, the hold time
 * ends, or the server shuts down.
 */
export interface LongPollLimits {
  /** How long a long poll is held. */
  holdMs: number;
  /** Held long polls in this process, all organizations together; more answer 429. */
  maxHeld: number;
  /** Held long polls of one organization in this process; more answer 429, so one tenant cannot take every place. */
  maxHeldPerOrganization: number;
}

export class FeedService {
  private held = 0;
  private readonly heldByOrganization = new Map<string, number>();
  private readonly shutdown = new AbortController();
  private readonly readAhead: ReadAhead;

  constructor(
    private readonly log: EventLog,
    private readonly limits: LongPollLimits,
  ) {
    // A batch read ahead follows a full one, so it is usually full too: worth reading in halves
    // when it is not stored yet.
    this.readAhead = new ReadAhead((organizationId, afterSeq) => this.log.readBatch(organizationId, afterSeq, true));
  }

  /** Long polls held open now (for GET /metrics). */
  get heldLongPolls(): number {
    return this.held;
  }

  /** Answers every held long poll with what it has (usually `[]`); new ones are not held. */
  releaseAll(): void {
    this.shutdown.abort();
  }

  /**
   * The batch to answer with. Its body may be in a buffer lent by the feed cache: the caller calls
   * `release`, when set, once the body has been sent (the response has closed).
   */
  async read(request: FeedRequest): Promise<RenderedBatch> {
    const { organizationId } = request;
    const ahead = request.lastEventId === undefined ? undefined : await this.readAhead.take(organizationId, request.lastEventId.toLowerCase());
    // An empty batch read ahead means the consumer has reached the end of the log: a long poll
    // must then be held, and a plain read must see what committed since, so read afresh.
    if (ahead && ahead.count > 0) return this.serve(organizationId, ahead);
    ahead?.release?.();
    const after = await this.log.positionAfter(organizationId, request.lastEventId);
    const { holdMs, maxHeld, maxHeldPerOrganization } = this.limits;
    if (!request.longPolling || holdMs === 0 || this.shutdown.signal.aborted) {
      return this.serve(organizationId, await this.log.readBatch(organizationId, after));
    }
    const heldHere = this.heldByOrganization.get(organizationId) ?? 0;
    if (heldHere >= maxHeldPerOrganization) {
      throw tooManyRequests(`This organization already has ${maxHeldPerOrganization} long polls held (LONG_POLL_MAX_WAITING_PER_ORGANIZATION). Use longPolling=false, or retry later.`, Math.ceil(holdMs / 1000));
    }
    // The process's cap, like the organization's: a limit reached is a 429 that names it.
    if (this.held >= maxHeld) {
      throw tooManyRequests(`This server already holds ${maxHeld} long polls (LONG_POLL_MAX_WAITING). Use longPolling=false, or retry later.`, Math.ceil(holdMs / 1000));
    }
    this.held++;
    this.heldByOrganization.set(organizationId, heldHere + 1);
    // Subscribe before the first read: a commit between the read and the wait must still wake us.
    let woken = false;
    let wake = () => {};
    const onCommit = () => {
      woken = true;
      wake();
    };
    const { commits } = this.log;
    commits.on(request.organizationId, onCommit);
    commits.on("*", onCommit);
    this.shutdown.signal.addEventListener("abort", onCommit);
    const deadline = Date.now() + holdMs;
    try {
      for (;;) {
        const batch = await this.log.readBatch(request.organizationId, after);
        const remaining = deadline - Date.now();
        if (batch.count > 0 || remaining <= 0 || this.shutdown.signal.aborted) return this.serve(request.organizationId, batch);
        batch.release?.();
        if (!woken) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, remaining);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        woken = false;
      }
    } finally {
      this.held--;
      const left = this.heldByOrganization.get(organizationId)! - 1;
      if (left === 0) this.heldByOrganization.delete(organizationId);
      else this.heldByOrganization.set(organizationId, left);
      commits.off(request.organizationId, onCommit);
      commits.off("*", onCommit);
      this.shutdown.signal.removeEventListener("abort", onCommit);
    }
  }

  /** The newest events (of one subject, if given), oldest first, as a CloudEvents batch with each principal's name. */
  async recent(organizationId: string, limit: number, subject?: string): Promise<string> {
    const rows = await this.log.readLatest(organizationId, limit, subject);
    return this.log.renderBatch(rows, await this.log.principalNames(organizationId, rows.map((r) => r.principal)));
  }

  private serve(organizationId: string, batch: RenderedBatch): RenderedBatch {
    this.readAhead.served(organizationId, batch);
    return batch;
  }
}
