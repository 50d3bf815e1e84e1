import type { EventLog } from "./log.js";
import { MAX_BATCH } from "./log.js";
import { unavailable } from "../platform/errors.js";
import { ReadAhead } from "./read-ahead.js";
import type { EventRow } from "./repository.js";

export interface FeedRequest {
  organizationId: string;
  lastEventId?: string;
  longPolling: boolean;
}

/**
 * Reads the feed, holding a long poll until an event of the organization commits, the hold time
 * ends, or the server shuts down.
 */
export class FeedService {
  private held = 0;
  private readonly shutdown = new AbortController();
  private readonly readAhead: ReadAhead;

  constructor(
    private readonly log: EventLog,
    private readonly holdMs: number,
    private readonly maxHeld: number,
  ) {
    this.readAhead = new ReadAhead((organizationId, afterSeq) => this.log.readAfter(organizationId, afterSeq, MAX_BATCH));
  }

  /** Answers every held long poll with what it has (usually `[]`); new ones are not held. */
  releaseAll(): void {
    this.shutdown.abort();
  }

  async read(request: FeedRequest): Promise<string> {
    const { organizationId } = request;
    const ahead = request.lastEventId === undefined ? undefined : await this.readAhead.take(organizationId, request.lastEventId.toLowerCase());
    if (ahead) return this.serve(organizationId, ahead);
    const after = await this.log.positionAfter(organizationId, request.lastEventId);
    if (!request.longPolling || this.holdMs === 0 || this.shutdown.signal.aborted) {
      return this.serve(organizationId, await this.log.readAfter(organizationId, after, MAX_BATCH));
    }
    if (this.held >= this.maxHeld) {
      throw unavailable("Too many long polls are being held. Use longPolling=false, or retry later.");
    }
    this.held++;
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
    const deadline = Date.now() + this.holdMs;
    try {
      for (;;) {
        const rows = await this.log.readAfter(request.organizationId, after, MAX_BATCH);
        const remaining = deadline - Date.now();
        if (rows.length > 0 || remaining <= 0 || this.shutdown.signal.aborted) return this.serve(request.organizationId, rows);
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
      commits.off(request.organizationId, onCommit);
      commits.off("*", onCommit);
      this.shutdown.signal.removeEventListener("abort", onCommit);
    }
  }

  /** The newest events (of one subject, if given), oldest first, as a CloudEvents batch. */
  async recent(organizationId: string, limit: number, subject?: string): Promise<string> {
    return this.log.renderBatch(await this.log.readLatest(organizationId, limit, subject));
  }

  private serve(organizationId: string, rows: EventRow[]): string {
    this.readAhead.served(organizationId, rows);
    return this.log.renderBatch(rows);
  }
}
