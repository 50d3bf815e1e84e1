/**
 * The worker thread that evaluates rules (see `runner.ts`): a rule that runs long or builds huge
 * values is stopped here, by its deadline or the thread's memory limit, while the server's main
 * thread keeps answering.
 */
import { parentPort } from "node:worker_threads";
import { evaluateRules, prepareRules, type RuleResult, type RuleToRun } from "./evaluate.js";

export interface RuleTask {
  rules: RuleToRun[];
  inputs: Array<Record<string, unknown>>;
  /**
   * How many inputs, in order, that some rule matches need the values read (a dry run lists only
   * its first findings); the results of the inputs after them carry an empty `read`. Unset: all.
   */
  reads?: number;
}

/** Before a task: compile its rules (the runner times this apart from the evaluation). */
export interface PrepareTask {
  prepare: RuleToRun[];
}

export function runTask(task: RuleTask): RuleResult[][] {
  let reads = task.reads ?? Number.POSITIVE_INFINITY;
  return task.inputs.map((input) => {
    const results = evaluateRules(task.rules, input, reads > 0);
    if (results.some((r) => r.matched)) reads--;
    return results;
  });
}

if (parentPort) {
  const port = parentPort;
  port.on("message", (task: RuleTask | PrepareTask) => {
    try {
      if ("prepare" in task) {
        prepareRules(task.prepare);
        port.postMessage({ prepared: true });
      } else port.postMessage({ results: runTask(task) });
    } catch (error) {
      port.postMessage({ failed: error instanceof Error ? error.message : String(error) });
    }
  });
  port.postMessage({ ready: true });
}
