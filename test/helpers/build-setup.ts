import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Once before the tests: the build in `dist/` made current when a source changed since it was made
 * (the browser tests serve `dist/web`, some process tests run `dist/cli`), so no test runs against
 * an older web app than the sources it is checked with.
 */
export default function setup(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const result = spawnSync(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`the build failed (exit ${result.status}); the tests need dist/`);
}
