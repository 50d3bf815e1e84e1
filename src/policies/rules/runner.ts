import { Worker } from "node:worker_threads";
import { Problem, tooManyRequests, unavailable } from "../../platform/errors.js";
import { costOf, knownCostOf, runTask, type RuleResult, type RuleTask, type RuleToRun } from "./evaluate.js";
import { costOver, IN_PROCESS_BUDGET, MAX_IN_PROCESS_LENGTH } from "./placement.js";
import type { PrepareTask } from "./worker.js";

/**
 * Runs rules where docs/policies.md ("Where rules run") says: a rule whose cost is bounded by
 * its input, over an input small enough, on the calling thread at once; every other rule on a
 * worker thread of its own, one task at a time, with the cost limits of docs/policies.md: a task
 * that runs past `timeoutMs` is stopped (the thread is ended and a new one started), one that
 * needs more than `memoryMb` of heap ends its thread the same way, and no more than `maxQueue`
 * tasks wait. The main thread only waits for those, so it keeps answering others.
 */

/** Compiling a task's rules may take this many times the evaluation's time limit. */
export const COMPILE_LIMIT_FACTOR = 10;

export interface RuleLimits {
  timeoutMs: number;
  memoryMb: number;
  maxQueue: number;
  /** Most cost units (`placement.ts`) a task's rules may be bounded by to run in process; 0: all on the thread. */
  inProcessBudget?: number;
}

/** A rule was stopped by a cost limit: a 422 problem naming the limit. */
export class RuleLimitExceeded extends Problem {
  constructor(detail: string) {
    super(422, detail);
  }
}

interface Pending {
  task: RuleTask;
  resolve(results: RuleResult[][]): void;
  reject(error: Error): void;
}

export class RuleRunner {
  #worker: Worker | undefined;
  #ready: Promise<Worker> | undefined;
  readonly #queue: Pending[] = [];
  #running: Pending | undefined;
  #closed = false;
  /** Rules this thread is to compile, one a turn of the event loop, by their key. */
  readonly #toCompile = new Map<string, RuleToRun>();

  constructor(readonly limits: RuleLimits) {}

  /** Evaluates every rule over every input; results by input, then by rule. */
  async run(task: RuleTask): Promise<RuleResult[][]> {
    if (task.rules.length === 0) return task.inputs.map(() => []);
    if (this.#closed) throw unavailable("The server is shutting down.");
    const budget = this.limits.inProcessBudget ?? IN_PROCESS_BUDGET;
    const { here, there, uncompiled } = placeRules(task, budget);
    if (budget > 0) this.#compileLater(uncompiled);
    if (there.length > 0 && this.#queue.length >= this.limits.maxQueue) throw tooManyRequests("Too many rule evaluations are waiting; try again shortly.", "2");
    const mixed = here.length > 0 && there.length > 0;
    // Mixed, each part answers every input's values read, and the task's count applies to both together.
    const part = (rules: readonly RuleToRun[]): RuleTask => ({ ...task, rules: [...rules], ...(mixed ? { reads: undefined } : {}) });
    const local = here.length > 0 ? inProcess(part(here.map((i) => task.rules[i]!))) : undefined;
    if (there.length === 0) return local!;
    const remote = await this.#queued(part(there.map((i) => task.rules[i]!)));
    if (!local) return remote;
    return limitReads(
      task.inputs.map((_, n) => {
        const merged: RuleResult[] = new Array(task.rules.length);
        here.forEach((i, k) => (merged[i] = local[n]![k]!));
        there.forEach((i, k) => (merged[i] = remote[n]![k]!));
        return merged;
      }),
      task.reads,
    );
  }

  /**
   * Compiles on this thread, a rule a turn, the rules a decision sent to the rule thread only
   * because this thread had not compiled them: a decision never waits for them, and the next
   * ones may run them in process.
   */
  #compileLater(rules: readonly RuleToRun[]): void {
    const idle = this.#toCompile.size === 0;
    for (const rule of rules) if (rule.condition.length <= MAX_IN_PROCESS_LENGTH) this.#toCompile.set(`${rule.gates.join(",")}\u0000${rule.condition}`, rule);
    if (!idle || this.#toCompile.size === 0) return;
    const step = () => {
      const [key, rule] = this.#toCompile.entries().next().value ?? [];
      if (key === undefined || this.#closed) return;
      this.#toCompile.delete(key);
      try {
        costOf(rule!);
      } catch {
        // A rule this thread cannot compile stays on the rule thread, which reports why.
      }
      if (this.#toCompile.size > 0) setImmediate(step).unref();
    };
    setImmediate(step).unref();
  }

  #queued(task: RuleTask): Promise<RuleResult[][]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ task, resolve, reject });
      void this.#next();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const p of this.#queue.splice(0)) p.reject(unavailable("The server is shutting down."));
    const worker = this.#worker;
    this.#worker = undefined;
    this.#ready = undefined;
    await worker?.terminate();
  }

  #start(): Promise<Worker> {
    // From source (tests, `npm run dev`) the worker is TypeScript, loaded through tsx.
    const fromSource = import.meta.url.endsWith(".ts");
    const entry = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url);
    // From source, the thread registers tsx's loader first, then imports its TypeScript entry.
    const bootstrap = () => `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
    const worker = new Worker(fromSource ? bootstrap() : entry, {
      eval: fromSource,
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: Math.max(4, Math.floor(this.limits.memoryMb / 4)) },
    });
    worker.unref();
    this.#worker = worker;
    return new Promise((resolve, reject) => {
      const onMessage = (m: { ready?: boolean }) => {
        if (!m.ready) return;
        worker.off("message", onMessage);
        resolve(worker);
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
    });
  }

  async #next(): Promise<void> {
    if (this.#running || this.#queue.length === 0 || this.#closed) return;
    const pending = this.#queue.shift()!;
    this.#running = pending;
    try {
      let worker: Worker;
      try {
        this.#ready ??= this.#start();
        worker = await this.#ready;
      } catch (error) {
        this.#ready = undefined;
        throw error;
      }
      // Compiling is timed apart from evaluating: a thread started anew (after a stopped rule, or
      // on a busy machine) compiles every rule again, and that must not count against the time
      // limit of the evaluation itself (docs/policies.md).
      await this.#exchange(worker, { prepare: pending.task.rules }, this.limits.timeoutMs * COMPILE_LIMIT_FACTOR, `compiling the rules took longer than ${this.limits.timeoutMs * COMPILE_LIMIT_FACTOR} ms (${COMPILE_LIMIT_FACTOR} × RULE_TIMEOUT_MS)`);
      const reply = await this.#exchange(worker, pending.task, this.limits.timeoutMs, `it ran longer than its time limit of ${this.limits.timeoutMs} ms (RULE_TIMEOUT_MS)`);
      pending.resolve(reply.results!);
    } catch (error) {
      pending.reject(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.#running = undefined;
      void this.#next();
    }
  }

  /** Sends one message to the thread and waits for its answer, within `limitMs`; a thread that runs past it, or fails, is ended. */
  #exchange(worker: Worker, message: RuleTask | PrepareTask, limitMs: number, overrun: string): Promise<{ results?: RuleResult[][] }> {
    return new Promise((resolve, reject) => {
      const finish = (outcome: { reply?: { results?: RuleResult[][] }; error?: Error }, restart: boolean) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (restart) {
          this.#ready = undefined;
          this.#worker = undefined;
          void worker.terminate();
        }
        if (outcome.reply) resolve(outcome.reply);
        else reject(outcome.error!);
      };
      const onMessage = (m: { results?: RuleResult[][]; prepared?: boolean; failed?: string }) =>
        m.failed === undefined ? finish({ reply: m }, false) : finish({ error: new RuleLimitExceeded(`A rule could not be evaluated: ${m.failed}.`) }, false);
      const onError = (error: Error & { code?: string }) =>
        finish(
          {
            error:
              error.code === "ERR_WORKER_OUT_OF_MEMORY"
                ? new RuleLimitExceeded(`A rule was stopped: it needed more than its memory limit of ${this.limits.memoryMb} MB (RULE_MEMORY_MB). Nothing was changed.`)
                : new RuleLimitExceeded(`A rule was stopped: ${error.message}. Nothing was changed.`),
          },
          true,
        );
      const onExit = () => finish({ error: new RuleLimitExceeded("A rule was stopped: its worker thread ended. Nothing was changed.") }, true);
      const timer = setTimeout(
        () =>
          finish(
            { error: new RuleLimitExceeded(`A rule was stopped: ${overrun}. Nothing was changed.`) },
            true,
          ),
        limitMs,
      );
      worker.on("message", onMessage);
      worker.once("error", onError);
      worker.once("exit", onExit);
      worker.postMessage(message);
    });
  }
}

/**
 * Which of the task's rules run in process (`here`) and which on the rule thread (`there`), by
 * their index: a rule runs here when this thread has compiled it, its cost is bounded by its
 * input (`placement.ts`), and its bound over every input of the task, added to those of the
 * rules placed here before it, stays within `budget`. `uncompiled`: the rules sent to the thread
 * because this thread has not compiled them.
 */
export function placeRules(task: RuleTask, budget: number): { here: number[]; there: number[]; uncompiled: RuleToRun[] } {
  const here: number[] = [];
  const there: number[] = [];
  const uncompiled: RuleToRun[] = [];
  let spent = 0;
  // The size at each path, measured once per input for all the rules that read it.
  const sizes = task.inputs.map(() => new Map<string, [number, number]>());
  task.rules.forEach((rule, i) => {
    const plan = knownCostOf(rule);
    if (plan === undefined) uncompiled.push(rule);
    let cost = 0;
    if (plan === undefined || "thread" in plan || budget <= 0) cost = Number.POSITIVE_INFINITY;
    else for (let n = 0; n < task.inputs.length && cost <= budget - spent; n++) cost += costOver(plan, task.inputs[n]!, budget, sizes[n]!);
    if (spent + cost <= budget) {
      spent += cost;
      here.push(i);
    } else there.push(i);
  });
  return { here, there, uncompiled };
}

/** Runs a task on this thread (the values read are copies of the input's, as on the rule thread). */
function inProcess(task: RuleTask): RuleResult[][] {
  try {
    return runTask(task);
  } catch (error) {
    throw new RuleLimitExceeded(`A rule could not be evaluated: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

/** Leaves the values read only in the first `reads` inputs some rule matched, as `RuleTask` says. */
function limitReads(results: RuleResult[][], reads: number | undefined): RuleResult[][] {
  if (reads === undefined) return results;
  let left = reads;
  for (const byRule of results) {
    if (left <= 0) for (const r of byRule) r.read = {};
    if (byRule.some((r) => r.matched)) left--;
  }
  return results;
}
