/**
 * What the benchmarks share: measuring, throw-away databases seeded with events, `steward serve`
 * children, and reading feed batches over HTTP without parsing them.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import type { NewEventRow } from "../src/events/repository.js";
import { loadConfig } from "../src/platform/config.js";
import { nanoTimestamp, systemClock } from "../src/platform/clock.js";
import { openDatabase, type Database } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { createServices } from "../src/services.js";
import { serve, type ServeProcess } from "../test/helpers/cli.js";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "../test/helpers/databases.js";

export const SMALL = process.env.BENCH_SCALE === "small";

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Peak and current memory of a process, from /proc (Linux). */
export function memoryOf(pid: number): { hwmMiB: number; rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { hwmMiB: round(kib("VmHWM") / 1024, 1), rssMiB: round(kib("VmRSS") / 1024, 1) };
}

/**
 * CPU time a process has used so far, user and system, in seconds (Linux, 10 ms steps). Steadier
 * than a rate on a shared machine: it does not count the time a process waits for a core.
 */
export function cpuSecondsOf(pid: number): number {
  return round(cpuTicks(readFileSync(`/proc/${pid}/stat`, "utf8")) / 100);
}

/**
 * CPU time of PostgreSQL on this machine so far, in seconds: the database's share of a benchmark,
 * when nothing else uses it. Live processes count their own time, and the postmaster counts that of
 * the backends that have ended (it waits for each).
 */
export function postgresCpuSeconds(): number {
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.includes(" (postgres) ")) ticks += cpuTicks(stat, true);
    } catch {
      // The process ended between listing and reading.
    }
  }
  return round(ticks / 100);
}

/** utime + stime of a `/proc/<pid>/stat` line, and with `ended` the same of its ended children. */
function cpuTicks(stat: string, ended = false): number {
  const fields = stat.split(") ")[1].split(" ");
  // After the command's closing parenthesis: state is field 0, utime 11, stime 12, and the
  // children's cutime 13, cstime 14 (clock ticks).
  const own = Number(fields[11]) + Number(fields[12]);
  return ended ? own + Number(fields[13]) + Number(fields[14]) : own;
}

/**
 * CPU time per call of the Steward server (and of PostgreSQL, on it) and of this process, the
 * client, summed over every run of a kind of call: steadier than the rates, which this shared
 * two-core machine moves by ±25 %, and the client's share shows how much of a rate was its own.
 */
export class CpuPerCall {
  private server = 0;
  private database = 0;
  private client = 0;
  private calls = 0;

  constructor(
    private readonly pid: number,
    private readonly kind: DatabaseKind,
  ) {}

  async measure<T>(calls: number, work: () => Promise<T>): Promise<T> {
    const [server, database, client] = [cpuSecondsOf(this.pid), this.kind === "postgres" ? postgresCpuSeconds() : 0, process.cpuUsage()];
    const result = await work();
    const used = process.cpuUsage(client);
    this.server += cpuSecondsOf(this.pid) - server;
    if (this.kind === "postgres") this.database += postgresCpuSeconds() - database;
    this.client += (used.user + used.system) / 1e6;
    this.calls += calls;
    return result;
  }

  /** Microseconds per call. */
  report(): { server: number; postgres?: number; client: number } {
    const micros = (seconds: number) => Math.round((seconds * 1e6) / this.calls);
    return { server: micros(this.server), ...(this.kind === "postgres" ? { postgres: micros(this.database) } : {}), client: micros(this.client) };
  }
}

export interface Seeded {
  url: string;
  organizationId: string;
  key: string;
  size: number;
  /** The feed cache's directory (FEED_CACHE_DIR), when the target has one: the process storing batches fills it. */
  feedCacheDir?: string;
  drop(): Promise<void>;
}

export async function withDatabase<T>(url: string, work: (database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(url);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

/** The address every benchmark server announces: the bare-HTTP baseline then serves exactly the bytes Steward serves. */
const BENCH_APP_URL = "http://steward.bench";

export function benchConfig(databaseUrl: string) {
  return loadConfig({}, { databaseUrl, port: 0, host: "127.0.0.1", bootstrap: false, logLevel: "silent", appUrl: BENCH_APP_URL });
}

/** A fresh database with one organization and its key; with `feedCache`, a feed cache directory beside it. */
export async function createSeeded(kind: DatabaseKind, { feedCache = false } = {}): Promise<Seeded> {
  let dropDatabase: () => Promise<void>;
  let url: string;
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "steward-bench-"));
    url = `sqlite:${join(dir, "steward.db")}`;
    dropDatabase = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const database: TestDatabase = await createTestDatabase("postgres");
    url = database.url;
    dropDatabase = database.drop;
  }
  const feedCacheDir = feedCache ? mkdtempSync(join(tmpdir(), "steward-bench-feed-cache-")) : undefined;
  const drop = async () => {
    await dropDatabase();
    if (feedCacheDir) rmSync(feedCacheDir, { recursive: true, force: true });
  };
  return withDatabase(url, async (database) => {
    await migrateToLatest(database);
    const services = createServices(benchConfig(url), database, systemClock);
    const org = await services.organizations.create("bench");
    return { url, organizationId: org.organizationId, key: org.apiKey, size: 0, feedCacheDir, drop };
  });
}

/** What a server of the target is started with to use its feed cache. */
export function feedCacheEnv(target: Seeded): Record<string, string> {
  return target.feedCacheDir ? { FEED_CACHE_DIR: target.feedCacheDir } : {};
}

/**
 * Appends events straight into the log, 1,000 rows per insert and 20 inserts per transaction: a
 * million HTTP writes would take far longer than the reads this benchmark is about.
 */
export async function seed(target: Seeded, count: number): Promise<void> {
  const rowsPerInsert = 1000;
  const insertsPerTransaction = 20;
  const kinds = ["TeamCreatedEvent", "TeamUpdatedEvent", "TeamUpdatedEvent", "TeamDeletedEvent"];
  await withDatabase(target.url, async (database) => {
    let written = 0;
    while (written < count) {
      await database.db.transaction().execute(async (trx) => {
        for (let i = 0; i < insertsPerTransaction && written < count; i++) {
          const rows: NewEventRow[] = [];
          for (let r = 0; r < rowsPerInsert && written < count; r++, written++) {
            const n = target.size + written;
            const at = new Date();
            const subject = `team-${n % 5000}`;
            rows.push({
              id: uuidv7(),
              organization_id: target.organizationId,
              kind: kinds[n % kinds.length],
              subject,
              time: at.toISOString(),
              data: JSON.stringify({ id: subject, timestamp: nanoTimestamp(at) }),
              principal: "system",
              comment: null,
            });
          }
          await trx.insertInto("events").values(rows).execute();
        }
      });
    }
    if (database.dialect === "postgres") await database.pool!.query("analyze events");
  });
  target.size += count;
  await storeBatches(target);
}

/**
 * Has a `steward serve` child store the log's full batches, as servers do while they append
 * events, and waits until it has: a server stores on start whatever full batches are missing. In
 * a child, not here: this process is the benchmarks' consumer, and a consumer that had just
 * rendered 400 MB of batches itself read its next catch-up at two thirds of its speed.
 */
async function storeBatches(target: Seeded): Promise<void> {
  const expected = Math.floor(target.size / 1000);
  // With the target's feed cache, as a server of this machine writes the files as it stores.
  const server = await startChild(target.url, feedCacheEnv(target));
  try {
    await withDatabase(target.url, async (database) => {
      const stored = async () => {
        const row = await database.db
          .selectFrom("event_batches")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("organization_id", "=", target.organizationId)
          .executeTakeFirstOrThrow();
        return Number(row.count);
      };
      const deadline = Date.now() + 600_000;
      while ((await stored()) < expected) {
        if (Date.now() > deadline) throw new Error(`the server stored ${await stored()} of ${expected} batches in 10 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  } finally {
    await stopChild(server);
  }
}

/**
 * Starts a Steward server for a benchmark as `npm start` runs it: the build, not the sources
 * through `tsx` (`bench/run.ts` builds first). Through `tsx`, about one server process in two
 * promoted the objects of every request into V8's old generation, which cost it CPU and memory
 * that a server started from the build does not spend (bench/HISTORY.md, "Servers from the build").
 */
export async function startChild(url: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServeProcess> {
  // A benchmark may run beside other work on the machine: give the server longer to start than a test does.
  return serve({ DATABASE_URL: url, STEWARD_BOOTSTRAP: "false", APP_URL: BENCH_APP_URL, ...env }, { fromBuild: true, startTimeoutMs: 120_000, nodeArgs });
}

export async function stopChild(child: ServeProcess): Promise<void> {
  child.child.kill("SIGTERM");
  const timer = setTimeout(() => child.child.kill("SIGKILL"), 10_000);
  await child.exited;
  clearTimeout(timer);
}

export const ENVELOPE_ID = '{"specversion":"1.0","id":"';

/** How many envelopes a batch holds, counted in the text without parsing it. */
export function countEvents(text: string): number {
  let count = 0;
  for (let at = text.indexOf(ENVELOPE_ID); at >= 0; at = text.indexOf(ENVELOPE_ID, at + ENVELOPE_ID.length)) count++;
  return count;
}

/** The id of a batch's last event, found in the text without parsing it. */
export function lastIdOf(text: string): string | undefined {
  const at = text.lastIndexOf(ENVELOPE_ID);
  return at < 0 ? undefined : text.slice(at + ENVELOPE_ID.length, at + ENVELOPE_ID.length + 36);
}

/**
 * The client every benchmark sends its requests with. It shares this machine's two cores with the
 * server, so what it costs per request moves every rate measured with it: `fetch` spent more CPU
 * on a request than Steward did to answer it, and so set the pace of the very rates it was meant to
 * measure (bench/README.md, "The client"). By default requests go through `node:http` on kept-alive
 * connections, which costs a fraction of that; `BENCH_CLIENT=fetch` measures with `fetch` instead.
 */
export const CLIENT: "http" | "fetch" = process.env.BENCH_CLIENT === "fetch" ? "fetch" : "http";

const agent = new http.Agent({ keepAlive: true });

export interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Whether the answer's text is wanted; when not, it is read and dropped. */
  text?: boolean;
}

/** Sends one request with the benchmarks' client; its status and, when asked for, its text. */
export function send(url: string, { method = "GET", headers = {}, body, text = false }: Sent = {}): Promise<{ status: number; text: string }> {
  if (CLIENT === "fetch") {
    return fetch(url, { method, headers, body }).then(async (res) => ({
      status: res.status,
      text: text ? await res.text() : (await res.arrayBuffer(), ""),
    }));
  }
  return new Promise((resolve, reject) => {
    const sent = body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
    const req = http.request(url, { method, headers: sent, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => text && chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, text: text ? Buffer.concat(chunks).toString() : "" }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

export async function fetchBatch(url: string, key: string, lastEventId?: string, longPolling = false): Promise<string> {
  const query = `longPolling=${longPolling}${lastEventId ? `&lastEventId=${lastEventId}` : ""}`;
  const res = await send(`${url}/api/events?${query}`, { headers: { "x-api-key": key }, text: true });
  if (res.status !== 200) throw new Error(`GET /api/events answered ${res.status}: ${res.text}`);
  return res.text;
}
