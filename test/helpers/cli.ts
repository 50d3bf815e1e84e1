import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = ["--import", "tsx", "src/cli/main.ts"];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `steward <args>` from source in a child process, with `input` on its stdin, and waits for it to exit. */
export function runCli(args: string[], env: Record<string, string> = {}, input = ""): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "warn", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output(): string;
  /** Standard output alone (the JSON log lines), and standard error alone. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /**
   * The first key and setup link of a first start. A test's standard error is no terminal, so
   * they are in the file the output names (FIRST_START_FILE, a fresh one per process); empty when
   * this start made none.
   */
  firstStart(): string;
}

/**
 * Starts `steward serve` on a free port and resolves once it listens: from `dist/` as `npm start`
 * runs it (the test run's global setup brings the build up to date with the sources first), or
 * with `fromBuild: false` from source through tsx, which compiles the whole server in every
 * process and so starts several times slower.
 */
export function serve(env: Record<string, string>, { fromBuild = true, startTimeoutMs = 20_000, nodeArgs = [] as string[] } = {}): Promise<ServeProcess> {
  const firstStartFile = join(tmpdir(), `steward-first-start-${process.pid}-${randomBytes(4).toString("hex")}.txt`);
  const firstStart = () => (existsSync(firstStartFile) ? readFileSync(firstStartFile, "utf8") : "");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...(fromBuild ? ["dist/cli/main.js", "serve"] : [...CLI, "serve"])], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", FIRST_START_FILE: firstStartFile, ...env },
    });
    let out = "";
    let stdout = "";
    let stderr = "";
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    // The file holds a test database's key: gone with its process.
    void exited.then(() => rmSync(firstStartFile, { force: true }));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`steward serve did not start in ${startTimeoutMs} ms:\n${out}`));
    }, startTimeoutMs);
    let listening = false;
    const onData = (d: Buffer) => {
      out += d;
      // Look for the start line only until it came: re-scanning the whole output on every chunk
      // of a busy server's request log costs quadratic time in the test process.
      if (listening) return;
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*Steward is listening/.exec(out);
      if (match) {
        listening = true;
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => out, stdout: () => stdout, stderr: () => stderr, exited, firstStart });
      }
    };
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
      onData(d);
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
      onData(d);
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`steward serve exited with ${code}:\n${out}`));
    });
  });
}
