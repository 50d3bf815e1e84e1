/**
 * Fair shares of the worker threads (docs/security.md, "Resource limits"): work waits in one
 * queue per owner (an organization), and a thread that comes free takes the next piece of work
 * of the waiting owner served longest ago. One organization's flood therefore waits behind itself: another
 * organization's work waits at most for the pieces already running and one piece per other
 * owner that is waiting too. Each owner may hold `perOwner` pieces, running and waiting; past
 * that, or past `total` for everyone, it is refused — except an owner that holds nothing yet,
 * which always gets its one place.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Who the work of the current request is done for; set once the request is authenticated. */
const owners = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it starts) as work of `owner`. */
export function asOwner<T>(owner: string, fn: () => T): T {
  return owners.run(owner, fn);
}

/** The owner of the work being done now; work outside any request shares one owner. */
export function currentOwner(): string {
  return owners.getStore() ?? "";
}

/** The owner holds as much as it may, or everyone together does. */
export class ShareExhausted extends Error {}

/** Waiting for a slot was given up (the work's deadline passed, or the pool closed). */
export class WaitAborted extends Error {}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class FairQueue {
  private running = 0;
  private held = 0;
  private readonly holding = new Map<string, number>();
  /** Waiting work by owner. */
  private readonly waiting = new Map<string, Waiter[]>();
  /** When each owner holding work was last given a slot: the owner served longest ago goes next. */
  private readonly served = new Map<string, number>();
  private tick = 0;

  constructor(
    private readonly slots: number,
    private readonly perOwner: number,
    private readonly total: number,
  ) {}

  /** Pieces of work held (running and waiting) by `owner`. */
  heldBy(owner: string): number {
    return this.holding.get(owner) ?? 0;
  }

  /**
   * Waits for a slot for `owner`'s work; the returned function gives it back. Throws
   * `ShareExhausted` at once when the owner may not queue more, `WaitAborted` when `signal` ends
   * the wait first.
   */
  async acquire(owner: string, signal?: AbortSignal): Promise<() => void> {
    const mine = this.heldBy(owner);
    if (mine >= this.perOwner || (mine > 0 && this.held >= this.total)) throw new ShareExhausted();
    this.holding.set(owner, mine + 1);
    this.held++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = this.heldBy(owner) - 1;
      if (left > 0) this.holding.set(owner, left);
      else {
        this.holding.delete(owner);
        this.served.delete(owner);
      }
      this.held--;
    };
    if (this.running < this.slots && this.waiting.size === 0) {
      this.running++;
      this.served.set(owner, ++this.tick);
      return this.done(release);
    }
    try {
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { resolve, reject };
        const queue = this.waiting.get(owner);
        if (queue) queue.push(waiter);
        else this.waiting.set(owner, [waiter]);
        signal?.addEventListener("abort", () => {
          const q = this.waiting.get(owner);
          const at = q?.indexOf(waiter) ?? -1;
          if (at === -1) return;
          q!.splice(at, 1);
          if (q!.length === 0) this.waiting.delete(owner);
          reject(new WaitAborted());
        }, { once: true });
      });
    } catch (error) {
      release();
      throw error;
    }
    return this.done(release);
  }

  /** Refuses everything still waiting (the pool is closing). */
  abortAll(): void {
    const all = [...this.waiting.values()].flat();
    this.waiting.clear();
    for (const waiter of all) waiter.reject(new WaitAborted());
  }

  private done(release: () => void): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      release();
      this.running--;
      this.next();
    };
  }

  /** Hands a free slot to the waiting owner that was served longest ago. */
  private next(): void {
    if (this.running >= this.slots) return;
    let chosen: string | undefined;
    for (const owner of this.waiting.keys()) {
      if (chosen === undefined || (this.served.get(owner) ?? 0) < (this.served.get(chosen) ?? 0)) chosen = owner;
    }
    if (chosen === undefined) return;
    const queue = this.waiting.get(chosen)!;
    const waiter = queue.shift()!;
    if (queue.length === 0) this.waiting.delete(chosen);
    this.running++;
    this.served.set(chosen, ++this.tick);
    waiter.resolve();
  }
}
