/**
 * Repeats, after the summary, one line for each failed test and each unhandled error: where a CI
 * log is read from its end, the last lines then say what failed, not only how many.
 */
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

interface ErrorLike {
  name?: string;
  message?: string;
  stack?: string;
  VITEST_TEST_PATH?: unknown;
}

const oneLine = (text: string | undefined, max = 300) => (text ?? "").replace(/\s+/g, " ").trim().slice(0, max);

function describeError(error: ErrorLike): string {
  const firstFrame = error.stack?.split("\n").find((line) => /^\s+at /.test(line))?.trim() ?? "";
  return [`${error.name ?? "Error"}: ${oneLine(error.message)}`, oneLine(firstFrame, 200)].filter(Boolean).join(" ");
}

export default class TailReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<ErrorLike>): void {
    const lines: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests("failed")) {
        lines.push(`failed: ${module.relativeModuleId} > ${test.fullName}: ${oneLine(test.result().errors?.[0]?.message)}`);
      }
    }
    for (const error of unhandledErrors) {
      const origin = typeof error.VITEST_TEST_PATH === "string" ? ` (while ${relative(process.cwd(), error.VITEST_TEST_PATH)} ran)` : "";
      lines.push(`unhandled${origin}: ${describeError(error)}`);
    }
    if (lines.length > 0) process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
