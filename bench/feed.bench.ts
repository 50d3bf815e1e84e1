/**
 * The event feed at scale: catch-up throughput over HTTP against reading in-process, batch latency
 * at two log sizes, long-poll wake latency, write throughput, and the server's memory during a
 * catch-up. `BENCH_SCALE=small` runs the same steps on small numbers, as a smoke test.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { EventLog } from "../src/events/log.js";
import type { NewEventRow } from "../src/events/repository.js";
import { loadConfig } from "../src/platform/config.js";
import { nanoTimestamp, systemClock } from "../src/platform/clock.js";
import { openDatabase, type Database } from "../src/platform/database/index.js";
import { migrateToLatest } from "../src/platform/database/migrations/index.js";
import { startServer } from "../src/server.js";
import { createServices } from "../src/services.js";
import { serve, type ServeProcess } from "../test/helpers/cli.js";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "../test/helpers/databases.js";

const SMALL = process.env.BENCH_SCALE === "small";
const SCALE = SMALL
  ? { largeLog: 20_000, smallLog: 2_000, latencySamples: 10, wakeSamples: 30, writes: 80, pgCatchUp: 20_000 }
  : { largeLog: 1_000_000, smallLog: 10_000, latencySamples: 100, wakeSamples: 200, writes: 1_000, pgCatchUp: 1_000_000 };
const BATCH = 1000;
const CONCURRENCY = [1, 8];

// ---------------------------------------------------------------------------------------------
// Measuring

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Peak and current memory of a process, from /proc (Linux). */
function memoryOf(pid: number): { hwmMiB: number; rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { hwmMiB: round(kib("VmHWM") / 1024, 1), rssMiB: round(kib("VmRSS") / 1024, 1) };
}

// ---------------------------------------------------------------------------------------------
// Databases and servers

interface Seeded {
  url: string;
  organizationId: string;
  key: string;
  size: number;
  drop(): Promise<void>;
}

async function withDatabase<T>(url: string, work: (database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase(url);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

function benchConfig(databaseUrl: string) {
  return loadConfig({}, { databaseUrl, port: 0, host: "127.0.0.1", bootstrap: false, logLevel: "silent", appUrl: "http://steward.bench" });
}

/** A fresh database with one organization and its key. */
async function createSeeded(kind: DatabaseKind): Promise<Seeded> {
  let drop: () => Promise<void>;
  let url: string;
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "steward-bench-"));
    url = `sqlite:${join(dir, "steward.db")}`;
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const database: TestDatabase = await createTestDatabase("postgres");
    url = database.url;
    drop = database.drop;
  }
  return withDatabase(url, async (database) => {
    await migrateToLatest(database);
    const services = createServices(benchConfig(url), database, systemClock);
    const org = await services.organizations.create("bench");
    return { url, organizationId: org.organizationId, key: org.apiKey, size: 0, drop };
  });
}

/**
 * Appends events straight into the log, 1,000 rows per insert and 20 inserts per transaction: a
 * million HTTP writes would take far longer than the reads this benchmark is about.
 */
async function seed(target: Seeded, count: number): Promise<void> {
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
}

async function startChild(url: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  return serve({ DATABASE_URL: url, STEWARD_BOOTSTRAP: "false", ...env });
}

async function stopChild(child: ServeProcess): Promise<void> {
  child.child.kill("SIGTERM");
  const timer = setTimeout(() => child.child.kill("SIGKILL"), 10_000);
  await child.exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// The feed over HTTP and in-process

const ENVELOPE_ID = '{"specversion":"1.0","id":"';

/** How many envelopes a batch holds, counted in the text without parsing it. */
function countEvents(text: string): number {
  let count = 0;
  for (let at = text.indexOf(ENVELOPE_ID); at >= 0; at = text.indexOf(ENVELOPE_ID, at + ENVELOPE_ID.length)) count++;
  return count;
}

/** The id of a batch's last event, found in the text without parsing it. */
function lastIdOf(text: string): string | undefined {
  const at = text.lastIndexOf(ENVELOPE_ID);
  return at < 0 ? undefined : text.slice(at + ENVELOPE_ID.length, at + ENVELOPE_ID.length + 36);
}

async function fetchBatch(url: string, key: string, lastEventId?: string, longPolling = false): Promise<string> {
  const query = `longPolling=${longPolling}${lastEventId ? `&lastEventId=${lastEventId}` : ""}`;
  const res = await fetch(`${url}/api/events?${query}`, { headers: { "x-api-key": key } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /api/events answered ${res.status}: ${text}`);
  return text;
}

/**
 * Reads the whole log over HTTP in 1,000-event batches, as a consumer catching up does, while
 * sampling the server's memory. The consumer finds each batch's last id in the text; what it does
 * with the events is its own cost, not the feed's.
 */
async function catchUpOverHttp(server: ServeProcess, key: string, expected: number) {
  const pid = server.child.pid!;
  const before = memoryOf(pid);
  let maxRss = before.rssMiB;
  const sampler = setInterval(() => (maxRss = Math.max(maxRss, memoryOf(pid).rssMiB)), 50);
  // The largest RSS seen by 10 %, 50 % and 100 % of the way: a plateau, not a climb, means flat.
  const progress: Record<string, number> = {};
  const checkpoints = [0.1, 0.5];
  const started = performance.now();
  let events = 0;
  let bytes = 0;
  let last: string | undefined;
  try {
    for (;;) {
      const text = await fetchBatch(server.url, key, last);
      const id = lastIdOf(text);
      if (!id) break;
      events += countEvents(text);
      bytes += text.length;
      last = id;
      while (checkpoints.length > 0 && events >= checkpoints[0] * expected) {
        progress[`maxRssBy${checkpoints.shift()! * 100}pct`] = Math.max(maxRss, memoryOf(pid).rssMiB);
      }
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  if (events !== expected) throw new Error(`read ${events} events over HTTP, expected ${expected}`);
  const after = memoryOf(pid);
  return {
    events,
    seconds: round(seconds),
    eventsPerSecond: Math.round(events / seconds),
    mibPerSecond: round(bytes / 2 ** 20 / seconds, 1),
    serverMemoryMiB: { atStart: before.rssMiB, ...progress, maxRssDuring: Math.max(maxRss, after.rssMiB), peakHwm: after.hwmMiB },
  };
}

/** The baseline: the same rows read and rendered in this process, no HTTP, no auth. */
async function catchUpInProcess(target: Seeded) {
  return withDatabase(target.url, async (database) => {
    const log = new EventLog(database, benchConfig(target.url), systemClock);
    const started = performance.now();
    let events = 0;
    let bytes = 0;
    for (let after = 0; ; ) {
      const rows = await log.readAfter(target.organizationId, after);
      if (rows.length === 0) break;
      bytes += log.renderBatch(rows).length;
      events += rows.length;
      after = rows[rows.length - 1].seq;
    }
    const seconds = (performance.now() - started) / 1000;
    return { events, seconds: round(seconds), eventsPerSecond: Math.round(events / seconds), mibPerSecond: round(bytes / 2 ** 20 / seconds, 1) };
  });
}

/** Ids after which a full batch follows: near the start and near the end of the log. */
async function probeIds(target: Seeded): Promise<{ nearStart: string; nearEnd: string }> {
  return withDatabase(target.url, async (database) => {
    const log = new EventLog(database, benchConfig(target.url), systemClock);
    const first = await log.readAfter(target.organizationId, 0, 1);
    const start = first[0].seq;
    const [nearStart] = await log.readAfter(target.organizationId, start, 1);
    const [nearEnd] = await log.readAfter(target.organizationId, start + target.size - BATCH - 2, 1);
    return { nearStart: nearStart.id, nearEnd: nearEnd.id };
  });
}

/** Median time to look up each probe id, read the batch after it and render it, in this process. */
async function batchLatencyInProcess(target: Seeded, ids: { nearStart: string; nearEnd: string }) {
  return withDatabase(target.url, async (database) => {
    const log = new EventLog(database, benchConfig(target.url), systemClock);
    const result: Record<string, number> = {};
    for (const [where, id] of Object.entries(ids)) {
      const once = async () => log.renderBatch(await log.readAfter(target.organizationId, await log.positionAfter(target.organizationId, id)));
      for (let i = 0; i < 20; i++) await once(); // warm-up
      const samples: number[] = [];
      for (let i = 0; i < SCALE.latencySamples; i++) {
        const started = performance.now();
        await once();
        samples.push(performance.now() - started);
      }
      result[`${where}MedianMs`] = round(percentile(samples, 50));
    }
    return result;
  });
}

/** Median time of one full-batch request after each probe id. */
async function batchLatency(server: ServeProcess, key: string, ids: { nearStart: string; nearEnd: string }) {
  const result: Record<string, number> = {};
  for (const [where, id] of Object.entries(ids)) {
    for (let i = 0; i < 20; i++) await fetchBatch(server.url, key, id); // warm-up
    const samples: number[] = [];
    for (let i = 0; i < SCALE.latencySamples; i++) {
      const started = performance.now();
      const text = await fetchBatch(server.url, key, id);
      samples.push(performance.now() - started);
      if (countEvents(text) !== BATCH) throw new Error(`expected a full batch after ${where}`);
    }
    result[`${where}MedianMs`] = round(percentile(samples, 50));
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// The steps

/** Catch-up, batch latency and memory on SQLite at two log sizes; the in-process baseline. */
async function sqliteScale() {
  const target = await createSeeded("sqlite");
  try {
    const sizes: Record<string, unknown> = {};
    let seedSeconds = 0;
    for (const size of [SCALE.smallLog, SCALE.largeLog]) {
      const seedStarted = performance.now();
      await seed(target, size - target.size);
      seedSeconds += (performance.now() - seedStarted) / 1000;
      const server = await startChild(target.url);
      try {
        // Catch-up first: it warms the server up, so the latency samples after it are steady.
        const http = await catchUpOverHttp(server, target.key, size);
        const ids = await probeIds(target);
        const latency = await batchLatency(server, target.key, ids);
        const latencyInProcess = await batchLatencyInProcess(target, ids);
        sizes[String(size)] = { latency, latencyInProcess, http };
      } finally {
        await stopChild(server);
      }
    }
    const inProcess = await catchUpInProcess(target);
    return { sizes, inProcessLargeLog: inProcess, seedSeconds: round(seedSeconds, 1) };
  } finally {
    await target.drop();
  }
}

/** Catch-up over HTTP against in-process on PostgreSQL, at the large log size only. */
async function postgresCatchUp() {
  const target = await createSeeded("postgres");
  try {
    const seedStarted = performance.now();
    await seed(target, SCALE.pgCatchUp);
    const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);
    const server = await startChild(target.url);
    try {
      const http = await catchUpOverHttp(server, target.key, SCALE.pgCatchUp);
      const inProcess = await catchUpInProcess(target);
      return { events: SCALE.pgCatchUp, seedSeconds, http, inProcess, ratio: round(http.eventsPerSecond / inProcess.eventsPerSecond) };
    } finally {
      await stopChild(server);
    }
  } finally {
    await target.drop();
  }
}

/**
 * Commit-to-response time of a held long poll. `commit` appends one event through an EventLog and
 * resolves once it committed; the clock starts then and stops when the poll's answer is read.
 */
async function wakeLatency(url: string, key: string, commit: (n: number) => Promise<void>) {
  let last = lastIdOf(await fetchBatch(url, key));
  const samples: number[] = [];
  for (let n = 0; n < SCALE.wakeSamples; n++) {
    let answeredAt = 0;
    const held = fetchBatch(url, key, last, true).then((text) => ((answeredAt = performance.now()), text));
    await new Promise((resolve) => setTimeout(resolve, 25)); // let the request reach the server and be held
    if (answeredAt !== 0) throw new Error("a long poll was answered before the commit");
    await commit(n);
    const committedAt = performance.now();
    const text = await held;
    samples.push(answeredAt - committedAt);
    last = lastIdOf(text);
  }
  return { samples: samples.length, p50Ms: round(percentile(samples, 50)), p99Ms: round(percentile(samples, 99)), maxMs: round(Math.max(...samples)) };
}

/** A commit function appending one TeamUpdatedEvent per call through `log`. */
const committer = (log: EventLog, organizationId: string) => async (n: number) => {
  await log.transaction({ organizationId }, async (_trx, emit) => emit("TeamUpdatedEvent", `wake-${n}`));
};

/** In one process on SQLite: the server and the committing code share the EventLog. */
async function wakeInProcessSqlite() {
  const target = await createSeeded("sqlite");
  const server = await startServer(benchConfig(target.url), { logger: false });
  try {
    await committer(server.services.events, target.organizationId)(-1);
    return await wakeLatency(server.url, target.key, committer(server.services.events, target.organizationId));
  } finally {
    await server.close();
    await target.drop();
  }
}

/** Across processes on PostgreSQL: this process commits, a `steward serve` child holds the poll. */
async function wakeAcrossProcessesPostgres() {
  const target = await createSeeded("postgres");
  const server = await startChild(target.url);
  try {
    return await withDatabase(target.url, async (database) => {
      const log = new EventLog(database, benchConfig(target.url), systemClock);
      await committer(log, target.organizationId)(-1);
      return wakeLatency(server.url, target.key, committer(log, target.organizationId));
    });
  } finally {
    await stopChild(server);
    await target.drop();
  }
}

/**
 * Team PUTs per second over HTTP, each a change with its event, from 1 and 8 concurrent clients.
 * Baseline: the same PUT repeated with an identical body, which reads and compares but writes
 * nothing and emits nothing — everything but the write and its event.
 */
async function writeThroughput(kind: DatabaseKind) {
  const target = await createSeeded(kind);
  const server = await startChild(target.url);
  const put = async (path: string, name: string) => {
    const res = await fetch(`${server.url}${path}`, {
      method: "PUT",
      headers: { "x-api-key": target.key, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    await res.text();
    if (res.status !== 200) throw new Error(`PUT ${path} answered ${res.status}`);
  };
  /** `total` PUTs from `clients` concurrent clients; `same` keeps each client's body identical. */
  const perSecond = async (clients: number, total: number, round_: string, same: boolean) => {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; i < total / clients; i++) await put(`/api/teams/c${c}-t${i % 20}`, same ? `client ${c} team ${i % 20}` : `${round_} ${i}`);
      }),
    );
    return Math.round(total / ((performance.now() - started) / 1000));
  };
  try {
    const result: Record<string, unknown> = {};
    for (const clients of CONCURRENCY) {
      await perSecond(clients, 20 * clients, "warm-up", true); // creates each client's teams
      const noop = await perSecond(clients, SCALE.writes, "noop", true);
      const changes = await perSecond(clients, SCALE.writes, `c${clients}`, false);
      result[`clients${clients}`] = { changesPerSecond: changes, baselineNoopPutsPerSecond: noop, ratio: round(changes / noop) };
    }
    return result;
  } finally {
    await stopChild(server);
    await target.drop();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const scale = await sqliteScale();
  const sizes = scale.sizes as Record<
    string,
    { latency: Record<string, number>; latencyInProcess: Record<string, number>; http: Awaited<ReturnType<typeof catchUpOverHttp>> }
  >;
  const small = sizes[String(SCALE.smallLog)];
  const large = sizes[String(SCALE.largeLog)];
  const pgCatchUp = await postgresCatchUp();
  const wakeSqlite = await wakeInProcessSqlite();
  const wakePostgres = await wakeAcrossProcessesPostgres();
  const writesSqlite = await writeThroughput("sqlite");
  const writesPostgres = await writeThroughput("postgres");

  const catchUpRatio = round(large.http.eventsPerSecond / scale.inProcessLargeLog.eventsPerSecond);
  const latencyRatio = {
    nearStart: round(large.latency.nearStartMedianMs / small.latency.nearStartMedianMs),
    nearEnd: round(large.latency.nearEndMedianMs / small.latency.nearEndMedianMs),
  };
  const rssRatio = round(large.http.serverMemoryMiB.peakHwm / small.http.serverMemoryMiB.peakHwm);
  return {
    name: "event-feed",
    scale: SMALL ? "small" : "full",
    logSizes: { small: SCALE.smallLog, large: SCALE.largeLog },
    catchUpSqlite: {
      http: large.http,
      baselineInProcess: scale.inProcessLargeLog,
      ratio: catchUpRatio,
      target: ">= 0.5",
      met: catchUpRatio >= 0.5,
    },
    catchUpPostgres: { ...pgCatchUp, target: ">= 0.5", met: pgCatchUp.ratio >= 0.5 },
    batchLatencySqlite: {
      smallLog: small.latency,
      largeLog: large.latency,
      ratio: latencyRatio,
      inProcess: { smallLog: small.latencyInProcess, largeLog: large.latencyInProcess },
      target: "<= 1.5",
      met: latencyRatio.nearStart <= 1.5 && latencyRatio.nearEnd <= 1.5,
    },
    serverMemoryDuringCatchUp: {
      smallLog: small.http.serverMemoryMiB,
      largeLog: large.http.serverMemoryMiB,
      peakRatio: rssRatio,
      target: "flat (ratio <= 1.2)",
      met: rssRatio <= 1.2,
    },
    longPollWake: {
      inProcessSqlite: wakeSqlite,
      acrossProcessesPostgres: wakePostgres,
      target: "p99 < 50 ms",
      met: wakeSqlite.p99Ms < 50 && wakePostgres.p99Ms < 50,
    },
    writeThroughput: { sqlite: writesSqlite, postgres: writesPostgres },
    seedSeconds: { sqlite: scale.seedSeconds, postgres: pgCatchUp.seedSeconds },
  };
}
