/**
 * The worker thread that evaluates rules (see `runner.ts`): a rule that runs long or builds huge
 * values is stopped here, by its deadline or the thread's memory limit, while the server's main
 * thread keeps answering.
 */
import { parentPort } from "node:worker_threads";
import { prepareRules, runTask, type RuleTask, type RuleToRun } from "./evaluate.js";

export type { RuleTask };

/** Before a task: compile its rules (the runner times this apart from the evaluation). */
export interface PrepareTask {
  prepare: RuleToRun[];
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
