/**
 * The README's tour ("## A five-minute tour", with its "###" parts) is run, as written, against a
 * fresh Steward on each database, and every answer is compared with what the README shows.
 *
 * How the README writes a step and its expected output:
 * - Every ```sh block of the tour is a step. The steps run in order in one bash, as a reader who
 *   pastes them one after another would (functions and variables carry over), with `set -e`.
 *   Two things are swapped in: the key (`stw_...` in `export KEY=stw_...`) becomes the test
 *   organization's key, and `http://localhost:8080` the test server's address. The server's
 *   APP_URL is the default `http://localhost:8080`, so event envelopes read as in the README.
 * - The expected output is the ```json or ```text block that follows the step directly (blank
 *   lines between at most). A step that prints something must have one; a step that has one must
 *   print it.
 * - ```json: the step prints JSON values, one per line (`j` ends each answer with a newline); the
 *   block holds as many values, compact or pretty-printed, matched one for one in order. Only the
 *   members shown are compared (the README shortens answers); arrays are compared element by
 *   element and must have the length shown, unless their last element is "…"; the string "…"
 *   matches any value, and "…" inside a string matches any characters.
 * - ```text: every line of the block must equal a line of the output, in the same order; other
 *   output lines may come between; "…" matches any characters, and a line that is only "…" is
 *   there for the reader.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/platform/config.js";
import { startServer } from "../src/server.js";
import { createTestDatabase, DATABASES, POSTGRES_URL } from "./helpers/databases.js";
import { jsonValues, missingLines, prepare, section, tourSteps, type TourStep } from "./helpers/readme-tour.js";
import { request, startTestServer, type TestServer } from "./helpers/server.js";

const README = readFileSync(resolve(process.cwd(), "README.md"), "utf8");
const TOUR = section(README, "## A five-minute tour");
const STEPS = tourSteps(TOUR.text, TOUR.firstLine);
const README_ADDRESS = "http://localhost:8080";
const KEY_PLACEHOLDER = "stw_...";
/** Printed after each step, so the output can be cut into the steps' outputs. */
const MARK = "@@steward-readme-tour-step@@";

function title(step: TourStep): string {
  return `README.md line ${step.line}: ${step.code.split("\n").find((line) => line.trim() !== "")?.trim()}`;
}

function bash(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile("bash", ["-c", script], { timeout: 120_000, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, NO_PROXY: "*", no_proxy: "*" } }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe("the README's tour", () => {
  it("has steps, each command block with its expected output", () => {
    expect(STEPS.length).toBeGreaterThan(10);
    expect(STEPS[0].code).toContain(`export KEY=${KEY_PLACEHOLDER}`);
    expect(STEPS[0].code).toContain(`export API=${README_ADDRESS}/api`);
    for (const heading of ["### An access request, from requested to deactivated", "### Health"]) expect(TOUR.text).toContain(heading);
  });
});

describe.each(DATABASES)("the README's tour on %s", (kind) => {
  let t: TestServer;
  const outputs: (string | undefined)[] = [];
  let run: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    t = await startTestServer(kind, { appUrl: README_ADDRESS });
    const script = ["set -e", ...STEPS.flatMap((step) => [step.code.replaceAll(KEY_PLACEHOLDER, t.key).replaceAll(README_ADDRESS, t.url), `printf '\\n%s\\n' '${MARK}'`])];
    run = await bash(script.join("\n"));
    const parts = run.stdout.split(`\n${MARK}\n`);
    // The part after the last mark is what a step that stopped the script printed, or nothing.
    for (let i = 0; i < STEPS.length; i++) outputs.push(i < parts.length - 1 ? parts[i] : undefined);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  it.each(STEPS.map((step, i) => [title(step), i] as const))("%s", (_title, i) => {
    const step = STEPS[i];
    const output = outputs[i];
    expect(output, `the tour stopped here (exit ${run.code}): ${run.stderr.slice(-2000)}`).toBeDefined();
    const printed = output!.trim();
    if (step.expected === undefined) {
      expect(printed, "this step prints something, but the README shows no expected output after it").toBe("");
      return;
    }
    const where = `expected output at README.md line ${step.expected.line}`;
    if (step.expected.kind === "text") {
      expect(missingLines(step.expected.body, printed), `${where}: lines not printed, in this order\n--- printed:\n${printed}`).toEqual([]);
      return;
    }
    const expected = jsonValues(step.expected.body, where);
    const actual = jsonValues(printed, "printed output");
    expect(actual.length, `${where}: the README shows ${expected.length} JSON values, the step printed ${actual.length}\n${printed}`).toBe(expected.length);
    expected.forEach((value, n) => {
      const pair = prepare(value, actual[n]);
      if (pair.expected !== null && typeof pair.expected === "object") expect(pair.actual, `${where}, value ${n + 1}`).toMatchObject(pair.expected);
      else expect(pair.actual, `${where}, value ${n + 1}`).toEqual(pair.expected);
    });
  });
});

/**
 * What the tour's Health part says about a database that cannot be reached, with a real one made
 * unreachable: PostgreSQL behind a TCP relay that drops every connection while "down".
 */
describe("/health/ready when the database cannot be reached", () => {
  const POSTGRES = new URL(POSTGRES_URL);
  let relay: Server;
  let down = false;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    relay = createServer((client) => {
      if (down) return client.destroy();
      const upstream = connect(Number(POSTGRES.port || 5432), POSTGRES.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("error", () => {});
        socket.on("close", () => sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((ready) => relay.listen(0, "127.0.0.1", ready));
  });

  afterAll(async () => {
    await new Promise((closed) => relay.close(closed));
  });

  it("answers 503 with a problem, live stays 200, and ready recovers with the database", async () => {
    const database = await createTestDatabase("postgres");
    const relayed = new URL(database.url);
    relayed.host = `127.0.0.1:${(relay.address() as AddressInfo).port}`;
    const config = loadConfig({}, { port: 0, host: "127.0.0.1", databaseUrl: relayed.toString(), bootstrap: false, logLevel: "silent" });
    const server = await startServer(config, { logger: false });
    try {
      expect((await request(server.url, "GET", "/health/ready")).status).toBe(200);
      down = true;
      for (const socket of sockets) socket.destroy();
      const ready = await request(server.url, "GET", "/health/ready");
      expect(ready.status).toBe(503);
      expect(ready.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(ready.body).toMatchObject({ status: 503, detail: "The database is not reachable." });
      expect(TOUR.text).toContain(`"detail": "${ready.body.detail}"`);
      expect((await request(server.url, "GET", "/health/live")).status).toBe(200);
      down = false;
      expect((await request(server.url, "GET", "/health/ready")).status).toBe(200);
    } finally {
      down = false;
      await server.close();
      await database.drop();
    }
  });
});
