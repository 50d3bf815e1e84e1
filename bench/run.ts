/**
 * Benchmark runner: `npx tsx bench/run.ts [name ...]` builds Steward when its build is not current,
 * runs `bench/<name>.bench.ts` (all of them when no name is given), writes
 * `bench/results/<name>.json` with the machine and date, and prints a summary.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const suffix = ".bench.ts";

async function main(): Promise<void> {
  const available = readdirSync(here).filter((f) => f.endsWith(suffix)).map((f) => basename(f, suffix)).sort();
  const wanted = process.argv.slice(2).map((a) => basename(a).replace(/\.bench\.ts$/, ""));
  const unknown = wanted.filter((w) => !available.includes(w));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${available.join(", ")}`);
    process.exitCode = 2;
    return;
  }
  const names = wanted.length > 0 ? wanted : available;
  const machine = {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  };
  // The servers benchmarked are started from the build, as `npm start` runs them: build it unless it is current.
  const build = spawnSync(process.execPath, [join(here, "..", "scripts", "build.mjs"), "--if-stale"], { stdio: "inherit" });
  if (build.status !== 0) {
    console.error("the build failed: no benchmark was run");
    process.exitCode = 1;
    return;
  }
  mkdirSync(join(here, "results"), { recursive: true });
  for (const name of names) {
    const mod = (await import(pathToFileURL(join(here, `${name}${suffix}`)).href)) as { run?: () => Promise<Record<string, unknown>> };
    if (typeof mod.run !== "function") {
      console.error(`${name}: no exported run()`);
      process.exitCode = 1;
      continue;
    }
    const started = Date.now();
    const result = await mod.run();
    const record = { ...result, date: new Date().toISOString(), durationMs: Date.now() - started, machine };
    writeFileSync(join(here, "results", `${name}.json`), JSON.stringify(record, null, 2) + "\n");
    console.log(`\n== ${name} (${String(result.name ?? name)})`);
    for (const [key, value] of Object.entries(result)) {
      if (key === "name") continue;
      console.log(`  ${key}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}`);
    }
  }
  console.log(`\nnode ${machine.node}, ${machine.cpus} × ${machine.cpuModel}`);
}

await main();
