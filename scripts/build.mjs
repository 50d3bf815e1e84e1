#!/usr/bin/env node
// Builds the server (tsc → dist/) and the web app (vite → dist/web).
//
//   node scripts/build.mjs              build
//   node scripts/build.mjs --if-stale   build only when a source file changed since the last build
//                                        (what `npm start` runs, so a restart is immediate)
//   node scripts/build.mjs --if-possible
//                                        skip with a note when the build tools are not installed
//                                        (`npm ci --omit=dev` in a clone; see README, production)
//
// The web app is built into a fresh folder and then switched into place by renames, so a build
// never empties the folder a starting server reads, and a failed build leaves the last good one.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const stampFile = join(dist, ".build-fingerprint");
const args = new Set(process.argv.slice(2));

/** What the build depends on: sources, configuration and the locked dependency tree. */
function fingerprint() {
  const hash = createHash("sha256");
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (!/\.(test|suite)\.tsx?$/.test(name)) files.push(full);
    }
  };
  walk(join(root, "src"));
  walk(join(root, "web"));
  for (const name of ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"]) {
    if (existsSync(join(root, name))) files.push(join(root, name));
  }
  for (const file of files) {
    hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

function isCurrent(print) {
  if (!existsSync(join(dist, "cli", "main.js")) || !existsSync(join(dist, "web", "index.html"))) return false;
  if (!existsSync(stampFile)) return false;
  return readFileSync(stampFile, "utf8").trim() === print;
}

function toolsInstalled() {
  const require = createRequire(join(root, "package.json"));
  try {
    require.resolve("typescript/package.json");
    require.resolve("vite/package.json");
    return true;
  } catch {
    return false;
  }
}

function run(command, commandArgs) {
  const result = spawnSync(process.execPath, [command, ...commandArgs], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const print = fingerprint();
if (args.has("--if-stale") && isCurrent(print)) process.exit(0);
if (!toolsInstalled()) {
  if (args.has("--if-possible")) {
    process.stderr.write(
      "steward: the build tools (dev dependencies) are not installed, so nothing was built.\n" +
        "         Build first with `npm ci && npm run build`, then `npm prune --omit=dev` (README: Running in production).\n",
    );
    process.exit(0);
  }
  process.stderr.write("steward: cannot build: TypeScript and Vite are dev dependencies; run `npm install` first.\n");
  process.exit(1);
}

const require = createRequire(join(root, "package.json"));
run(require.resolve("typescript/bin/tsc"), ["-p", "tsconfig.build.json"]);

// The web app: into a new folder, then two renames. The previous build stays as dist/web.previous
// until the next build, for a server that is starting at this very moment.
const next = join(dist, "web.next");
rmSync(next, { recursive: true, force: true });
run(join(dirname(require.resolve("vite/package.json")), "bin", "vite.js"), ["build", "--config", "web/vite.config.ts", "--outDir", next, "--emptyOutDir"]);
const current = join(dist, "web");
const previous = join(dist, "web.previous");
rmSync(previous, { recursive: true, force: true });
if (existsSync(current)) renameSync(current, previous);
renameSync(next, current);

writeFileSync(stampFile, `${print}\n`);
