/**
 * Worker threads for the CPU-heavy work of a request (PRODUCT.md §1): parsing a big specification
 * or YAML body, writing a big document as YAML. Any of these takes seconds for a few megabytes,
 * during which a server doing it on its main thread would answer nobody.
 *
 * One small pool serves all of it, so heavy requests together use at most `threads` cores and
 * queue up to a bound; past it they are refused (`WorkersBusy`, a 429 problem) instead of
 * piling up. Work that would run longer than its deadline is stopped (`WorkerTimedOut`).
 */
import { availableParallelism } from "node:os";
import { Piscina } from "piscina";
import { Problem } from "../platform/errors.js";
import type { tasks } from "./tasks.js";
import { trackWorkerTask } from "../metrics/registry.js";

/** Work on inputs up to about this size is done in place: a thread hop costs more than it does. */
export const IN_PLACE_BYTES = 64 * 1024;

type Tasks = typeof tasks;
export type TaskName = keyof Tasks;

/** Every worker is busy and the queue is full: a 429 for the client, who should retry shortly. */
export class WorkersBusy extends Problem {
  constructor() {
    super(429, "Every worker thread is busy with big documents; try again shortly.", undefined, { "retry-after": "5" });
  }
}

/** The work ran past its deadline and was stopped. */
export class WorkerTimedOut extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the work took longer than ${timeoutMs} ms`);
  }
}

let pool: Piscina | undefined;

function workerPool(): Piscina {
  if (pool) return pool;
  // From source (tests, `npm run dev`) the worker is TypeScript, loaded through tsx.
  const fromSource = import.meta.url.endsWith(".ts");
  const threads = Math.max(1, Math.min(4, availableParallelism() - 1));
  pool = new Piscina({
    filename: new URL(fromSource ? "./tasks.ts" : "./tasks.js", import.meta.url).href,
    execArgv: fromSource ? ["--import", "tsx"] : [],
    minThreads: 0,
    maxThreads: threads,
    maxQueue: threads * 16,
    idleTimeout: 30_000,
  });
  return pool;
}

/** Runs one of the `tasks` of `tasks.ts` on a worker thread. */
export async function runOffThread<N extends TaskName>(
  name: N,
  input: Parameters<Tasks[N]>[0],
  timeoutMs: number,
): Promise<ReturnType<Tasks[N]>> {
  const workers = workerPool();
  if (workers.queueSize >= workers.options.maxQueue) throw new WorkersBusy();
  const done = trackWorkerTask();
  try {
    return (await workers.run({ name, input }, { signal: AbortSignal.timeout(timeoutMs) })) as ReturnType<Tasks[N]>;
  } catch (error) {
    if (error instanceof Error && error.name === "AbortError") throw new WorkerTimedOut(timeoutMs);
    if (error instanceof Error && /queue is at limit/i.test(error.message)) throw new WorkersBusy();
    throw error;
  } finally {
    done();
  }
}

/** Work waiting for a free thread now (0 before the pool's first use). */
export function workerQueueDepth(): number {
  return pool?.queueSize ?? 0;
}

/** Stops the worker threads (on shutdown). */
export async function closeWorkers(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.destroy();
}
