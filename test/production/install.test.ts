import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { createTestDatabase, DATABASES, type TestDatabase } from "../helpers/databases.js";

/**
 * The ways Steward reaches a production machine, each with runtime dependencies only: the packed
 * tarball installed with `npm install --omit=dev`, and a built clone pruned with `npm prune
 * --omit=dev` (README, "Running in production"). Both must serve the API and the web app on
 * SQLite and on PostgreSQL.
 */

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
const quiet = { npm_config_fund: "false", npm_config_audit: "false", npm_config_update_notifier: "false" };

function npm(args: string[], cwd: string): string {
  const result = spawnSync(NPM, args, { cwd, encoding: "utf8", env: { ...process.env, ...quiet }, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`npm ${args.join(" ")} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

interface Served {
  url: string;
  output: () => string;
  stop(): Promise<number | null>;
}

/** Runs `<bin> serve` on a free port and waits for its "Steward listening on" line. */
function serve(command: string[], cwd: string, env: Record<string, string>): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0], command.slice(1), {
      cwd,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", STEWARD_BOOTSTRAP: "false", ...env },
    });
    let out = "";
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`it did not start:\n${out}`));
    }, 60_000);
    const onData = (d: Buffer) => {
      out += d;
      const match = /Steward listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          output: () => out,
          stop: async () => {
            child.kill("SIGTERM");
            return exited;
          },
        });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`it exited with ${code}:\n${out}`));
    });
  });
}

/** Creates an organization with the installed CLI and checks the API, health and web app answer. */
async function checkServes(bin: string[], cwd: string, databaseUrl: string): Promise<void> {
  const created = spawnSync(bin[0], [...bin.slice(1), "org", "create", "--name", "acme", "--json"], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" },
  });
  expect(created.status, created.stderr).toBe(0);
  const { apiKey } = JSON.parse(created.stdout) as { apiKey: string };

  const server = await serve([...bin, "serve"], cwd, { DATABASE_URL: databaseUrl });
  try {
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);
    const put = await fetch(`${server.url}/api/teams/sales`, {
      method: "PUT",
      headers: { "x-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify({ name: "Sales" }),
    });
    expect(put.status).toBe(200);
    // A YAML body over 64 KiB is parsed on a worker thread, which loads its own module from the install.
    const yaml = await fetch(`${server.url}/api/teams/marketing`, {
      method: "PUT",
      headers: { "x-api-key": apiKey, "content-type": "application/yaml" },
      body: `name: Marketing\ndescription: ${"m".repeat(70 * 1024)}\n`,
    });
    expect(yaml.status, await yaml.clone().text()).toBe(200);
    expect(((await yaml.json()) as { name: string }).name).toBe("Marketing");
    const page = await fetch(`${server.url}/teams/sales`);
    const html = await page.text();
    expect(page.status).toBe(200);
    const script = /<script type="module"[^>]*src="([^"]+)"/.exec(html);
    expect(script, html).not.toBeNull();
    expect((await fetch(`${server.url}${script![1]}`)).status).toBe(200);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}

describe("production installs with runtime dependencies only", () => {
  let work: string;
  const databases: TestDatabase[] = [];
  const database = async (kind: (typeof DATABASES)[number]) => {
    const d = await createTestDatabase(kind);
    databases.push(d);
    return d.url;
  };

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "steward-install-"));
    // What the install is made from must be a current build, as `npm ci` leaves it.
    const build = spawnSync(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: ROOT, encoding: "utf8" });
    if (build.status !== 0) throw new Error(build.stderr);
  });
  afterAll(async () => {
    for (const d of databases) await d.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it("starts without rebuilding when the build is current", { timeout: 5 * 60_000 }, async () => {
    const stamp = () => ["dist/.build-fingerprint", "dist/cli/main.js", "dist/web/index.html"].map((f) => statSync(join(ROOT, f)).mtimeMs);
    const before = stamp();
    const server = await serve([NPM, "start", "--silent"], ROOT, { DATABASE_URL: `sqlite:${join(work, "start.db")}` });
    try {
      expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
    } finally {
      // npm passes SIGTERM on to Steward and then ends by the same signal: no exit code to check.
      await server.stop();
    }
    // Steward itself stopped with npm, as a supervisor that signals `npm start` expects: the script
    // execs Steward, so no shell in between swallows the signal and leaves Steward running.
    await expect(fetch(`${server.url}/health/live`)).rejects.toThrow();
    // Nothing under dist/ was written: the start went straight to serving.
    expect(stamp()).toEqual(before);
    expect(server.output()).not.toMatch(/vite|tsc/i);
  });

  it("installs the packed tarball with --omit=dev and serves on both databases", { timeout: 15 * 60_000 }, async () => {
    npm(["pack", "--ignore-scripts", "--pack-destination", work], ROOT);
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBeDefined();
    const app = join(work, "app");
    mkdirSync(app);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "steward-host", private: true }));
    npm(["install", "--omit=dev", join(work, tarball!)], app);
    // Only runtime dependencies were installed: no compiler, no bundler, no test runner.
    for (const dev of ["typescript", "vite", "vitest"]) expect(() => statSync(join(app, "node_modules", dev))).toThrow();

    const bin = [join(app, "node_modules", ".bin", "steward")];
    for (const kind of DATABASES) {
      const url = kind === "sqlite" ? `sqlite:${join(work, "packed.db")}` : await database(kind);
      await checkServes(bin, app, url);
    }
  });

  it("serves from a built clone pruned to runtime dependencies", { timeout: 5 * 60_000 }, async () => {
    const clone = join(work, "clone");
    const files = spawnSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).stdout.split("\0").filter(Boolean);
    for (const file of files) {
      try {
        cpSync(join(ROOT, file), join(clone, file));
      } catch {
        // A file deleted in the working tree but still tracked: not part of this checkout.
      }
    }
    cpSync(join(ROOT, "dist"), join(clone, "dist"), { recursive: true });
    // Hard links keep the copy cheap; prune unlinks what it removes and leaves the original alone.
    const copy = spawnSync("cp", ["-al", join(ROOT, "node_modules"), join(clone, "node_modules")]);
    expect(copy.status).toBe(0);
    npm(["prune", "--omit=dev", "--ignore-scripts"], clone);
    expect(() => statSync(join(clone, "node_modules", "typescript"))).toThrow();

    const bin = [process.execPath, join(clone, "dist", "cli", "main.js")];
    for (const kind of DATABASES) {
      const url = kind === "sqlite" ? `sqlite:${join(work, "clone.db")}` : await database(kind);
      await checkServes(bin, clone, url);
    }
  });
});
