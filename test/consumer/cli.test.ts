import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";
import { newOrg, until, type Org } from "./helpers.js";

interface Consume {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** The exit code; the child is killed and the test fails after `timeoutMs`. */
  exited: Promise<number | null>;
}

/** Starts `steward consume <args>` from source, without STEWARD_API_KEY unless given in `env`. */
function consume(args: string[], env: Record<string, string> = {}, timeoutMs = 45_000): Consume {
  const { STEWARD_API_KEY: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "consume", ...args], { cwd: ROOT, env: { ...inherited, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`steward consume did not exit within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  // A rejection not yet awaited must not count as unhandled.
  exited.catch(() => {});
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

const lines = (text: string) => text.split("\n").filter(Boolean);

// Each run starts a child process from source: slow on a busy machine, hence the long timeouts.
describe("steward consume", { timeout: 90_000 }, () => {
  let t: TestServer;
  let dir: string;
  const running: Consume[] = [];
  const start = (...args: Parameters<typeof consume>) => {
    const c = consume(...args);
    running.push(c);
    return c;
  };

  beforeAll(async () => {
    t = await startTestServer("sqlite");
    dir = mkdtempSync(join(tmpdir(), "steward-consume-cli-"));
  });
  afterAll(async () => {
    for (const c of running) if (c.child.exitCode === null) c.child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  const common = (org: Org) => ["--url", org.url, "--empty-wait-ms", "60000"];

  it("prints one line per event, keeps the key out of its output, and stops cleanly on SIGINT", async () => {
    const org = await newOrg(t);
    await org.touch("a");
    await org.touch("a");
    const events = await org.events();
    const c = start([...common(org)], { STEWARD_API_KEY: org.key });
    await until(() => lines(c.stdout()).length === 2, 30_000, "two printed events");
    c.child.kill("SIGINT");
    expect(await c.exited).toBe(0);
    expect(lines(c.stdout())).toEqual(events.map((e) => `${e.time} ${e.type.split(".").at(-1)} a ${e.id}`));
    expect(c.stdout() + c.stderr()).not.toContain(org.key);
  });

  it("--exec gets each event on stdin; --types filters; the position file resumes; SIGTERM exits 0", async () => {
    const org = await newOrg(t);
    for (const team of ["a", "a", "b"]) await org.touch(team);
    const position = join(dir, "exec", "position");
    const out = join(dir, "exec.jsonl");
    const args = [...common(org), "--api-key", org.key, "--position-file", position, "--exec", `cat >> '${out}'; echo "$STEWARD_EVENT_KIND" >> '${out}.kinds'`];
    const first = start([...args, "--types", "TeamUpdatedEvent,TeamCreatedEvent"]);
    let events = await org.events();
    await until(() => existsSync(position) && readFileSync(position, "utf8").trim() === events[2].id, 30_000, "the position of the third event");
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(lines(readFileSync(out, "utf8")).map((line) => JSON.parse(line))).toEqual(events);

    await org.touch("b");
    await org.touch("c");
    events = await org.events();
    const second = start([...args, "--types", "TeamCreatedEvent"]);
    await until(() => readFileSync(position, "utf8").trim() === events[4].id, 30_000, "the position of the fifth event");
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    // The second run started after the third event and passed only the created team on.
    expect(lines(readFileSync(out, "utf8")).map((line) => JSON.parse(line).id)).toEqual([...events.slice(0, 3), events[4]].map((e) => e.id));
    expect(lines(readFileSync(`${out}.kinds`, "utf8"))).toEqual(["TeamCreatedEvent", "TeamUpdatedEvent", "TeamCreatedEvent", "TeamCreatedEvent"]);
  });

  it("escapes hostile ids in printed lines, and keeps the API key from --exec commands", async () => {
    const org = await newOrg(t);
    const hostile = "x\n2026-01-01T00:00:00Z TeamDeletedEvent forged 0\x1b[31m";
    expect((await request(org.url, "PUT", `/api/teams/${encodeURIComponent(hostile)}`, { name: "h" }, { key: org.key })).status).toBe(200);
    const [event] = await org.events();
    const printer = start([...common(org)], { STEWARD_API_KEY: org.key });
    await until(() => printer.stdout().endsWith("\n"), 30_000, "a printed event");
    printer.child.kill("SIGINT");
    expect(await printer.exited).toBe(0);
    expect(printer.stdout()).toBe(`${event.time} TeamCreatedEvent x\\n2026-01-01T00:00:00Z\\x20TeamDeletedEvent\\x20forged\\x200\\x1b[31m ${event.id}\n`);

    const envFile = join(dir, "exec-env");
    const exec = start([...common(org), "--position-file", join(dir, "exec-env-position"), "--exec", `env > '${envFile}.tmp' && mv '${envFile}.tmp' '${envFile}'`], {
      STEWARD_API_KEY: org.key,
    });
    await until(() => existsSync(envFile), 30_000, "the command's environment");
    exec.child.kill("SIGTERM");
    expect(await exec.exited).toBe(0);
    const env = readFileSync(envFile, "utf8");
    expect(env).toContain(`STEWARD_EVENT_ID=${event.id}`);
    expect(env).toContain("STEWARD_EVENT_KIND=TeamCreatedEvent");
    expect(env).not.toContain(org.key);
  });

  it("hides a key given with --api-key from the process list its --exec commands can read", async () => {
    const org = await newOrg(t);
    await org.touch("cmdline");
    const seen = join(dir, "parent-cmdline");
    const c = start([...common(org), "--api-key", org.key, "--position-file", join(dir, "cmdline-position"), "--exec", `tr '\\0' ' ' < /proc/$PPID/cmdline > '${seen}.tmp' && mv '${seen}.tmp' '${seen}'`]);
    await until(() => existsSync(seen), 30_000, "the parent's command line");
    c.child.kill("SIGTERM");
    expect(await c.exited).toBe(0);
    const cmdline = readFileSync(seen, "utf8");
    expect(cmdline).toContain("steward");
    expect(cmdline).not.toContain(org.key);
  });

  it("a failing --exec stops with exit 1 and the position file holds the event before it", async () => {
    const org = await newOrg(t);
    for (const team of ["a", "b", "c", "d"]) await org.touch(team);
    const events = await org.events();
    const position = join(dir, "failing-position");
    // Succeeds for the first two events, fails on the third.
    const script = `read -r event; n=$(cat '${dir}/count' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '${dir}/count'; [ "$n" -lt 3 ]`;
    const failing = start([...common(org), "--api-key", org.key, "--position-file", position, "--exec", script]);
    expect(await failing.exited).toBe(1);
    expect(failing.stderr()).toContain(`--exec command exited with code 1 on event ${events[2].id}`);
    expect(readFileSync(position, "utf8").trim()).toBe(events[1].id);

    // Restarted, it resumes with the event that failed.
    const resumed = start([...common(org), "--api-key", org.key, "--position-file", position, "--json"]);
    await until(() => lines(resumed.stdout()).length === 2, 30_000, "two printed events");
    resumed.child.kill("SIGINT");
    expect(await resumed.exited).toBe(0);
    expect(lines(resumed.stdout()).map((line) => JSON.parse(line))).toEqual(events.slice(2));
  });

  it("keeps the position in Steward with --connector-id", async () => {
    const org = await newOrg(t);
    await org.touch("a");
    const [event] = await org.events();
    const c = start([...common(org), "--api-key", org.key, "--connector-id", "cli", "--connector-type", "printer"]);
    const connector = () => t.api("GET", "/api/connectors/cli", undefined, { key: org.key });
    await until(async () => (await connector()).body?.state?.lastEventId === event.id, 30_000, "the connector's position");
    c.child.kill("SIGTERM");
    expect(await c.exited).toBe(0);
    expect((await connector()).body).toMatchObject({ info: { type: "printer" }, state: { lastEventId: event.id } });
  });

  it("exits 2 without an API key, and 1 with a wrong one, naming the problem but not the key", async () => {
    const missing = await start(["--url", t.url]).exited;
    expect(missing).toBe(2);
    expect(running.at(-1)!.stderr()).toMatch(/an API key is required: pass --api-key or set STEWARD_API_KEY/);

    const wrongKey = `stw_${"w".repeat(43)}`;
    const wrong = start(["--url", t.url], { STEWARD_API_KEY: wrongKey });
    expect(await wrong.exited).toBe(1);
    expect(wrong.stderr()).toMatch(/answered 401 Unauthorized: A valid API key is required/);
    expect(wrong.stderr()).not.toContain(wrongKey);
  });
});
