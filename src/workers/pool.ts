/**
 * Worker threads for the CPU-heavy work of a request (docs/product.md §1): parsing a big specification
 * or YAML body, writing a big document as YAML. Any of these takes seconds for a few megabytes,
 * during which a server doing it on its main thread would answer nobody.
 *
 * One small pool per application serves all of it, so heavy requests together use at most `threads` cores and
 * queue up to a bound; past it they are refused (`WorkersBusy`, a 429 problem) instead of
 * piling up. The queue is shared fairly between organizations (`shares.ts`): each waits in its
 * own line and may hold `WORKER_QUEUE_PER_ORGANIZATION` pieces of work. Work that would run
 * longer than its deadline, waiting included, is stopped (`WorkerTimedOut`).
 */
import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import { Problem } from "../platform/errors.js";
import { currentOwner, FairQueue, ShareExhausted, WaitAborted } from "./shares.js";
import type { tasks } from "./tasks.js";
import { trackWorkerTask } from "../metrics/registry.js";

/** Work on inputs up to about this size is done in place: a thread hop costs more than it does. */
export const IN_PLACE_BYTES = 64 * 1024;

type Tasks = typeof tasks;
export type TaskName = keyof Tasks;

/** The organization's share of the workers, or every worker and the queue, is full: a 429 for the client, who should retry shortly. */
export class WorkersBusy extends Problem {
  constructor() {
    super(429, "The worker threads are busy with this organization's big documents (WORKER_QUEUE_PER_ORGANIZATION); try again shortly.", undefined, { "retry-after": "5" });
  }
}

/** Default of WORKER_QUEUE_PER_ORGANIZATION: pieces of work one organization may have running and waiting. */
export const DEFAULT_WORKER_QUEUE_PER_ORGANIZATION = 8;

function threadCount(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/** The work ran past its deadline and was stopped. */
export class WorkerTimedOut extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the work took longer than ${timeoutMs} ms`);
  }
}

/**
 * The worker threads of one application, and how much of them one organization may hold
 * (WORKER_QUEUE_PER_ORGANIZATION). Each application is given its own (`createServices`), so two in
 * one process keep their own shares, and closing one stops only its threads.
 */
export class Workers {
  #pool: Piscina | undefined;
  #shares: FairQueue | undefined;

  constructor(private readonly options: { perOrganization: number } = { perOrganization: DEFAULT_WORKER_QUEUE_PER_ORGANIZATION }) {}

  /**
   * Runs one of the `tasks` of `tasks.ts` on a worker thread, as work of `owner` (by default the
   * organization of the request it is done for, see `asOwner`).
   */
  async run<N extends TaskName>(name: N, input: Parameters<Tasks[N]>[0], timeoutMs: number, owner: string = currentOwner()): Promise<ReturnType<Tasks[N]>> {
    const threads = threadCount();
    this.#shares ??= new FairQueue(threads, this.options.perOrganization, threads * 16);
    const pool = (this.#pool ??= startPool(threads));
    const signal = AbortSignal.timeout(timeoutMs);
    let release: () => void;
    try {
      release = await this.#shares.acquire(owner, signal);
    } catch (error) {
      if (error instanceof ShareExhausted) throw new WorkersBusy();
      if (error instanceof WaitAborted) throw new WorkerTimedOut(timeoutMs);
      throw error;
    }
    const done = trackWorkerTask();
    try {
      return (await pool.run({ name, input }, { signal })) as ReturnType<Tasks[N]>;
    } catch (error) {
      if (error instanceof Error && error.name === "AbortError") throw new WorkerTimedOut(timeoutMs);
      if (error instanceof Error && /queue is at limit/i.test(error.message)) throw new WorkersBusy();
      throw error;
    } finally {
      done();
      release();
    }
  }

  /** Work waiting for a free thread now (0 before the first use). */
  queueDepth(): number {
    return this.#pool?.queueSize ?? 0;
  }

  /** Stops the threads (on shutdown); work given afterwards starts new ones. */
  async close(): Promise<void> {
    const current = this.#pool;
    this.#pool = undefined;
    this.#shares?.abortAll();
    this.#shares = undefined;
    await current?.destroy();
  }
}

function startPool(threads: number): Piscina {
  // From source (tests, `npm run dev`) the worker is TypeScript, loaded through tsx.
  const fromSource = import.meta.url.endsWith(".ts");
  return new Piscina({
    filename: new URL(fromSource ? "./tasks.ts" : "./tasks.js", import.meta.url).href,
    execArgv: fromSource ? ["--import", "tsx"] : [],
    minThreads: 0,
    maxThreads: threads,
    maxQueue: threads * 16,
    idleTimeout: 30_000,
  });
}
