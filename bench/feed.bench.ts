/**
 * The event feed at scale: catch-up throughput over HTTP against reading in-process and against a
 * bare Node HTTP server serving the same batch bytes, batch latency at two log sizes, long-poll
 * wake latency, and the server's memory during a catch-up. `BENCH_SCALE=small` runs the same steps on small numbers, as a smoke test.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventLog } from "../src/events/log.js";
import { systemClock } from "../src/platform/clock.js";
import { startServer } from "../src/server.js";
import type { ServeProcess } from "../test/helpers/cli.js";
import {
  benchConfig,
  CLIENT,
  countEvents,
  cpuSecondsOf,
  createSeeded,
  feedCacheEnv,
  fetchBatch,
  lastIdOf,
  memoryOf,
  percentile,
  round,
  seed,
  SMALL,
  startChild,
  stopChild,
  withDatabase,
  type Seeded,
} from "./support.js";

const SCALE = SMALL
  ? { largeLog: 20_000, smallLog: 2_000, latencySamples: 10, wakeSamples: 30, pgCatchUp: 20_000 }
  : { largeLog: 1_000_000, smallLog: 10_000, latencySamples: 300, wakeSamples: 200, pgCatchUp: 1_000_000 };
const BATCH = 1000;

// ---------------------------------------------------------------------------------------------
// The feed over HTTP and in-process

/**
 * Reads the whole feed at `url` batch after batch, as a consumer catching up does, finding each
 * batch's last id in the text; what it does with the events is its own cost, not the feed's.
 * `read` is told the running count after each batch. `serverCpuSeconds` is what the process
 * `serverPid` serving `url` used meanwhile.
 */
async function readAll(url: string, key: string, serverPid: number, read?: (events: number) => void) {
  const cpuBefore = cpuSecondsOf(serverPid);
  const clientCpuBefore = process.cpuUsage();
  const started = performance.now();
  let events = 0;
  let bytes = 0;
  let last: string | undefined;
  for (;;) {
    const text = await fetchBatch(url, key, last);
    const id = lastIdOf(text);
    if (!id) break;
    events += countEvents(text);
    bytes += text.length;
    last = id;
    read?.(events);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    events,
    seconds: round(seconds),
    eventsPerSecond: Math.round(events / seconds),
    mibPerSecond: round(bytes / 2 ** 20 / seconds, 1),
    serverCpuSeconds: round(cpuSecondsOf(serverPid) - cpuBefore),
    /** What this process, the client, used meanwhile. */
    clientCpuSeconds: round(secondsOf(process.cpuUsage(clientCpuBefore))),
  };
}

const secondsOf = ({ user, system }: NodeJS.CpuUsage) => (user + system) / 1e6;

/**
 * The client's own first pass over a large log costs it about a third more than its later passes
 * (its code is still being compiled), and the server it reads from waits meanwhile. Before the
 * measured passes the client reads the whole log once from a bare server and once from a Steward
 * server, both then thrown away, so that it has met both kinds of answer and the first pass
 * measured on each server compares the servers, not the client's warm-up. (With the bare server
 * alone, the first measured round was the lowest of three in every SQLite run: 0.68, 0.69 and 0.78
 * against 0.89–0.97.)
 */
async function warmUpClient(target: Seeded, batches: BareBatches, count: number, env: Record<string, string> = {}): Promise<void> {
  const bare = await startBare(batches, count);
  try {
    await readAll(bare.url, "none", bare.pid);
  } finally {
    bare.stop();
  }
  const server = await startChild(target.url, env);
  try {
    await catchUpOverHttp(server, target.key, count * BATCH);
  } finally {
    await stopChild(server);
  }
}

/** Reads the whole log from Steward over HTTP in 1,000-event batches while sampling the server's memory. */
export async function catchUpOverHttp(server: ServeProcess, key: string, expected: number) {
  const pid = server.child.pid!;
  const before = memoryOf(pid);
  let maxRss = before.rssMiB;
  const sampler = setInterval(() => (maxRss = Math.max(maxRss, memoryOf(pid).rssMiB)), 50);
  // The largest RSS seen by 10 %, 50 % and 100 % of the way: a plateau, not a climb, means flat.
  const progress: Record<string, number> = {};
  const checkpoints = [0.1, 0.5];
  let result: Awaited<ReturnType<typeof readAll>>;
  try {
    result = await readAll(server.url, key, pid, (events) => {
      while (checkpoints.length > 0 && events >= checkpoints[0] * expected) {
        progress[`maxRssBy${checkpoints.shift()! * 100}pct`] = Math.max(maxRss, memoryOf(pid).rssMiB);
      }
    });
  } finally {
    clearInterval(sampler);
  }
  if (result.events !== expected) throw new Error(`read ${result.events} events over HTTP, expected ${expected}`);
  const after = memoryOf(pid);
  return {
    ...result,
    serverMemoryMiB: { atStart: before.rssMiB, ...progress, maxRssDuring: Math.max(maxRss, after.rssMiB), peakHwm: after.hwmMiB },
  };
}

/** The baseline: the same rows read and rendered in this process, no HTTP, no auth. */
export async function catchUpInProcess(target: Seeded) {
  return withDatabase(target.url, async (database) => {
    const log = new EventLog(database, benchConfig(target.url), systemClock);
    const started = performance.now();
    let events = 0;
    let bytes = 0;
    for (let after = 0; ; ) {
      const batch = await log.readBatch(target.organizationId, after);
      if (batch.count === 0) break;
      bytes += batch.body.length;
      events += batch.count;
      after = batch.lastSeq;
    }
    const seconds = (performance.now() - started) / 1000;
    return { events, seconds: round(seconds), eventsPerSecond: Math.round(events / seconds), mibPerSecond: round(bytes / 2 ** 20 / seconds, 1) };
  });
}

/** The batches a bare server answers with: 16 rendered from the log, in a file of their own. */
interface BareBatches {
  file: string;
  remove(): void;
}

/** Renders the first 16 batches of the target's log once, for every bare server of a comparison. */
async function renderForBare(target: Seeded): Promise<BareBatches> {
  const dir = mkdtempSync(join(tmpdir(), "steward-bench-bare-"));
  const file = join(dir, "batches.json");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    await withDatabase(target.url, async (database) => {
      const log = new EventLog(database, benchConfig(target.url), systemClock);
      const rendered: string[] = [];
      for (let after = 0; rendered.length < 16; ) {
        const rows = await log.readAfter(target.organizationId, after);
        if (rows.length === 0) break; // a log of fewer than 16 batches
        rendered.push(log.renderBatch(rows));
        after = rows[rows.length - 1].seq;
      }
      writeFileSync(file, JSON.stringify(rendered));
    });
  } catch (error) {
    remove();
    throw error;
  }
  return { file, remove };
}

/**
 * The floor for a catch-up over HTTP: a bare Node HTTP server in a child process, answering each
 * request with a batch rendered from the same log (16 of them, in turn, held in memory), read by
 * the same client loop. What remains between it and Steward is Steward's own work per batch.
 * Each pass is `count` batches and then "[]"; the next pass starts over.
 */
async function startBare(batches: BareBatches, count: number): Promise<{ url: string; pid: number; stop(): void }> {
  const script = `
    const http = require("node:http");
    const batches = JSON.parse(require("node:fs").readFileSync(process.env.BATCHES, "utf8"));
    let served = 0;
    const server = http.createServer((req, res) => {
      const position = served++ % ${count + 1};
      const body = position < ${count} ? batches[position % batches.length] : "[]";
      res.writeHead(200, { "content-type": "application/cloudevents-batch+json", "cache-control": "no-store" });
      res.end(body);
    });
    server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ["-e", script], { env: { ...process.env, BATCHES: batches.file }, stdio: ["ignore", "pipe", "inherit"] });
  const stop = () => void child.kill("SIGTERM");
  try {
    const [chunk] = (await once(child.stdout, "data")) as [Buffer];
    return { url: `http://127.0.0.1:${chunk.toString().trim()}`, pid: child.pid!, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/** Pairs of fresh processes compared per catch-up, and warm passes compared on the last pair. */
const FRESH_ROUNDS = SMALL ? 1 : 3;
const WARM_ROUNDS = SMALL ? 2 : 4;

type StewardPass = Awaited<ReturnType<typeof catchUpOverHttp>>;
type BarePass = Awaited<ReturnType<typeof readAll>>;

/** One pass on each server, Steward's first or the bare server's first. */
async function pair(server: ServeProcess, key: string, expected: number, bare: { url: string; pid: number }, stewardFirst: boolean) {
  let steward: StewardPass;
  let bareRead: BarePass;
  if (stewardFirst) {
    steward = await catchUpOverHttp(server, key, expected);
    bareRead = await readAll(bare.url, "none", bare.pid);
  } else {
    bareRead = await readAll(bare.url, "none", bare.pid);
    steward = await catchUpOverHttp(server, key, expected);
  }
  return { steward, bare: bareRead, ratio: round(steward.eventsPerSecond / bareRead.eventsPerSecond), stewardFirst };
}

const medianOf = <T extends { ratio: number }>(rounds: T[]): T => [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor((rounds.length - 1) / 2)];

/**
 * Steward's catch-up against the bare server's, each figure the median of rounds in alternation,
 * so that what the shared machine does meanwhile falls on both.
 * - Fresh (`ratio`): `FRESH_ROUNDS` times, a Steward process started with `env` and a bare one,
 *   both new, each read the log once. A first pass costs a process more than its later ones, the
 *   bare server's too, so each fresh Steward pass is compared with a fresh bare pass.
 * - Warm (`ratioWarm`): on the last pair, `WARM_ROUNDS` rounds of one more pass each.
 * The order within a round alternates: the server read first in a round ran up to a fifth slower.
 * `use` runs on the last Steward process before it stops.
 */
async function againstBare(target: Seeded, env: Record<string, string>, expected: number, batches: BareBatches, use?: (server: ServeProcess) => Promise<void>) {
  const fresh: Awaited<ReturnType<typeof pair>>[] = [];
  const warm: Awaited<ReturnType<typeof pair>>[] = [];
  for (let r = 0; r < FRESH_ROUNDS; r++) {
    const bare = await startBare(batches, expected / BATCH);
    try {
      const server = await startChild(target.url, env);
      try {
        fresh.push(await pair(server, target.key, expected, bare, r % 2 === 0));
        if (r < FRESH_ROUNDS - 1) continue;
        for (let i = 0; i < WARM_ROUNDS; i++) warm.push(await pair(server, target.key, expected, bare, i % 2 === 0));
        await use?.(server);
      } finally {
        await stopChild(server);
      }
    } finally {
      bare.stop();
    }
  }
  const firstPasses = medianOf(fresh);
  const warmPasses = medianOf(warm);
  const summary = (rounds: typeof fresh) =>
    rounds.map((r) => ({ steward: r.steward.eventsPerSecond, bare: r.bare.eventsPerSecond, ratio: r.ratio, stewardFirst: r.stewardFirst, serverCpuSeconds: r.steward.serverCpuSeconds, bareCpuSeconds: r.bare.serverCpuSeconds, clientCpuSeconds: [r.steward.clientCpuSeconds, r.bare.clientCpuSeconds] }));
  return {
    http: firstPasses.steward,
    httpWarm: warmPasses.steward,
    bare: { ...firstPasses.bare, warm: warmPasses.bare },
    ratio: firstPasses.ratio,
    ratioWarm: warmPasses.ratio,
    freshRounds: summary(fresh),
    warmRounds: summary(warm),
  };
}

/** Where a batch latency is measured: after which event, and how many events the answer holds. */
type Probes = Record<"nearStart" | "nearEnd" | "insideNearEnd", { id: string; events: number }>;

/**
 * Ids after which a stored batch follows, as a consumer reading from the start asks for them:
 * the first batch's last event and the last but one batch's. And one event further, inside a
 * stored batch, where the answer is the rest of that batch (999 events) rendered from the rows.
 */
async function probeIds(target: Seeded): Promise<Probes> {
  return withDatabase(target.url, async (database) => {
    const log = new EventLog(database, benchConfig(target.url), systemClock);
    const [first] = await log.readAfter(target.organizationId, 0, 1);
    // The seeded log's positions are consecutive, from the first event's on.
    const at = async (seq: number) => (await log.readAfter(target.organizationId, seq - 1, 1))[0].id;
    const lastBatchStart = first.seq + (Math.floor(target.size / BATCH) - 1) * BATCH;
    return {
      nearStart: { id: await at(first.seq + BATCH - 1), events: BATCH },
      nearEnd: { id: await at(lastBatchStart - 1), events: BATCH },
      insideNearEnd: { id: await at(lastBatchStart), events: BATCH - 1 },
    };
  });
}

/** Median time to look up each probe id, read the batch after it and render it, in this process. */
async function batchLatencyInProcess(target: Seeded, probes: Probes) {
  return withDatabase(target.url, async (database) => {
    const log = new EventLog(database, benchConfig(target.url), systemClock);
    const result: Record<string, number> = {};
    for (const [where, { id }] of Object.entries(probes)) {
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

/** A server over one log, and where on that log its batch latencies are measured. */
interface LatencyTarget {
  server: ServeProcess;
  key: string;
  probes: Probes;
}

/**
 * Median time of one batch request after each probe id, on each log's server, their samples taken
 * in turn (the order swapped every round). Measured one log after the other, a second of load from
 * elsewhere on the machine fell on one side only: the ratio of the same build went from 0.73 to
 * 1.83 between two runs of the same hour.
 */
async function batchLatencies(targets: LatencyTarget[]): Promise<Record<string, number>[]> {
  const results = targets.map(() => ({}) as Record<string, number>);
  for (const where of ["nearStart", "nearEnd", "insideNearEnd"] as const) {
    const samples = targets.map(() => [] as number[]);
    const sample = async (n: number) => {
      const { server, key, probes } = targets[n];
      const started = performance.now();
      const text = await fetchBatch(server.url, key, probes[where].id);
      samples[n].push(performance.now() - started);
      if (countEvents(text) !== probes[where].events) throw new Error(`expected ${probes[where].events} events after ${where}`);
    };
    for (const { server, key, probes } of targets) {
      for (let i = 0; i < 20; i++) await fetchBatch(server.url, key, probes[where].id); // warm-up
    }
    for (let i = 0; i < SCALE.latencySamples; i++) {
      const order = targets.map((_, n) => n);
      if (i % 2 === 1) order.reverse();
      for (const n of order) await sample(n);
    }
    samples.forEach((taken, n) => (results[n][`${where}MedianMs`] = round(percentile(taken, 50))));
  }
  return results;
}

/**
 * The small log's side of the batch latency: a log of its own at that size, seeded and stored as
 * the large one was, and a server over it that has read it through a few times (as the large log's
 * server has served its catch-ups), measured in turn with the large log's server.
 */
async function latenciesAgainstSmallLog(large: { server: ServeProcess; target: Seeded }) {
  const small = await createSeeded("sqlite");
  try {
    await seed(small, SCALE.smallLog);
    const server = await startChild(small.url);
    try {
      for (let pass = 0; pass < 20; pass++) await catchUpOverHttp(server, small.key, SCALE.smallLog);
      const smallProbes = await probeIds(small);
      const largeProbes = await probeIds(large.target);
      const [smallLatency, largeLatency] = await batchLatencies([
        { server, key: small.key, probes: smallProbes },
        { server: large.server, key: large.target.key, probes: largeProbes },
      ]);
      return {
        small: { latency: smallLatency, latencyInProcess: await batchLatencyInProcess(small, smallProbes) },
        large: { latency: largeLatency, latencyInProcess: await batchLatencyInProcess(large.target, largeProbes) },
      };
    } finally {
      await stopChild(server);
    }
  } finally {
    await small.drop();
  }
}

// ---------------------------------------------------------------------------------------------
// The steps

/**
 * Catch-up, batch latency and memory on SQLite at two log sizes; the in-process baseline. The
 * servers run without a feed cache, as SQLite deployments do; one more catch-up of the large log
 * on a server with one shows what it would change.
 */
async function sqliteScale() {
  const target = await createSeeded("sqlite", { feedCache: true });
  try {
    const sizes: Record<string, unknown> = {};
    let seedSeconds = 0;
    let comparison: Awaited<ReturnType<typeof againstBare>> | undefined;
    let withFeedCache: Awaited<ReturnType<typeof againstBare>> | undefined;
    /** Both sizes' batch latencies, taken in turn on the large log's last warm server. */
    let latencies: Awaited<ReturnType<typeof latenciesAgainstSmallLog>> | undefined;
    for (const size of [SCALE.smallLog, SCALE.largeLog]) {
      const seedStarted = performance.now();
      await seed(target, size - target.size);
      seedSeconds += (performance.now() - seedStarted) / 1000;
      const batches = await renderForBare(target);
      try {
        await warmUpClient(target, batches, size / BATCH);
        if (size === SCALE.largeLog) {
          // In alternation with the bare server, fresh processes and then warm ones; then the same
          // on servers with the feed cache. The batch latencies of both sizes are taken on the
          // last warm server, after its catch-ups, in turn with a server over a small log.
          comparison = await againstBare(target, {}, size, batches, async (server) => void (latencies = await latenciesAgainstSmallLog({ server, target })));
          sizes[String(size)] = { http: comparison.http, httpWarm: comparison.httpWarm };
          withFeedCache = await againstBare(target, feedCacheEnv(target), size, batches);
        } else {
          const server = await startChild(target.url);
          try {
            const http = await catchUpOverHttp(server, target.key, size);
            const httpWarm = await catchUpOverHttp(server, target.key, size);
            // Then the same server reads its log again until it has served as many events as the
            // large log's catch-up will: a process's memory grows with the work it has done (V8
            // widens its young generation under a steady rate of allocation) until it levels off,
            // and only a comparison at equal work shows what the log's size adds.
            let afterSameWork = httpWarm.serverMemoryMiB;
            for (let served = 2 * size; served < SCALE.largeLog; served += size) {
              afterSameWork = (await catchUpOverHttp(server, target.key, size)).serverMemoryMiB;
            }
            sizes[String(size)] = { http, httpWarm, afterSameWork };
          } finally {
            await stopChild(server);
          }
        }
      } finally {
        batches.remove();
      }
    }
    const inProcess = await catchUpInProcess(target);
    return { sizes, latencies: latencies!, comparison: comparison!, withFeedCache: withFeedCache!, inProcessLargeLog: inProcess, seedSeconds: round(seedSeconds, 1) };
  } finally {
    await target.drop();
  }
}

/**
 * Catch-up over HTTP against in-process on PostgreSQL, at the large log size only: on a server
 * with a feed cache (FEED_CACHE_DIR, filled as the batches were stored), as a PostgreSQL
 * deployment whose consumers catch up runs, and then on one without.
 */
async function postgresCatchUp() {
  const target = await createSeeded("postgres", { feedCache: true });
  try {
    const seedStarted = performance.now();
    await seed(target, SCALE.pgCatchUp);
    const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);
    const batches = await renderForBare(target);
    let withCache: Awaited<ReturnType<typeof againstBare>>;
    let withoutFeedCache: Awaited<ReturnType<typeof againstBare>>;
    try {
      await warmUpClient(target, batches, SCALE.pgCatchUp / BATCH, feedCacheEnv(target));
      withCache = await againstBare(target, feedCacheEnv(target), SCALE.pgCatchUp, batches);
      withoutFeedCache = await againstBare(target, {}, SCALE.pgCatchUp, batches);
    } finally {
      batches.remove();
    }
    const inProcess = await catchUpInProcess(target);
    return {
      events: SCALE.pgCatchUp,
      seedSeconds,
      ...withCache,
      inProcess,
      ratioToInProcess: round(withCache.http.eventsPerSecond / inProcess.eventsPerSecond),
      withoutFeedCache,
    };
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

export async function run(): Promise<Record<string, unknown>> {
  const scale = await sqliteScale();
  const sizes = scale.sizes as Record<
    string,
    {
      http: Awaited<ReturnType<typeof catchUpOverHttp>>;
      httpWarm: Awaited<ReturnType<typeof catchUpOverHttp>>;
      /** The server after serving as many events as the large log's catch-up (the large log's: after its own two). */
      afterSameWork: Awaited<ReturnType<typeof catchUpOverHttp>>["serverMemoryMiB"];
    }
  >;
  const small = sizes[String(SCALE.smallLog)];
  const large = sizes[String(SCALE.largeLog)];
  const { latencies } = scale;
  const pgCatchUp = await postgresCatchUp();
  const wakeSqlite = await wakeInProcessSqlite();
  const wakePostgres = await wakeAcrossProcessesPostgres();

  const catchUpRatio = scale.comparison.ratio;
  const catchUpRatioWarm = scale.comparison.ratioWarm;
  const latencyRatio = {
    nearStart: round(latencies.large.latency.nearStartMedianMs / latencies.small.latency.nearStartMedianMs),
    nearEnd: round(latencies.large.latency.nearEndMedianMs / latencies.small.latency.nearEndMedianMs),
    insideNearEnd: round(latencies.large.latency.insideNearEndMedianMs / latencies.small.latency.insideNearEndMedianMs),
  };
  // Fresh against fresh, as measured until 2026-11-25, and at equal work, which the goal is judged by.
  const rssRatio = round(large.http.serverMemoryMiB.peakHwm / small.http.serverMemoryMiB.peakHwm);
  const rssRatioSameWork = round(large.http.serverMemoryMiB.peakHwm / small.afterSameWork.peakHwm);
  return {
    name: "event-feed",
    scale: SMALL ? "small" : "full",
    client: CLIENT,
    logSizes: { small: SCALE.smallLog, large: SCALE.largeLog },
    catchUpSqlite: {
      http: large.http,
      httpWarm: large.httpWarm,
      baselineBareHttp: scale.comparison.bare,
      freshRounds: scale.comparison.freshRounds,
      warmRounds: scale.comparison.warmRounds,
      ratio: catchUpRatio,
      ratioWarm: catchUpRatioWarm,
      inProcess: scale.inProcessLargeLog,
      ratioToInProcess: round(large.http.eventsPerSecond / scale.inProcessLargeLog.eventsPerSecond),
      withFeedCache: scale.withFeedCache,
      target: ">= 0.8 of bare HTTP",
      met: catchUpRatio >= 0.8 && catchUpRatioWarm >= 0.8,
    },
    catchUpPostgres: { ...pgCatchUp, target: ">= 0.8 of bare HTTP", met: pgCatchUp.ratio >= 0.8 && pgCatchUp.ratioWarm >= 0.8 },
    batchLatencySqlite: {
      smallLog: latencies.small.latency,
      largeLog: latencies.large.latency,
      ratio: latencyRatio,
      inProcess: { smallLog: latencies.small.latencyInProcess, largeLog: latencies.large.latencyInProcess },
      target: "<= 1.5",
      met: Object.values(latencyRatio).every((ratio) => ratio <= 1.5),
    },
    serverMemoryDuringCatchUp: {
      smallLog: small.http.serverMemoryMiB,
      largeLog: large.http.serverMemoryMiB,
      smallLogAfterSameWork: small.afterSameWork,
      peakRatio: rssRatio,
      peakRatioSameWork: rssRatioSameWork,
      target: "flat: the large log's peak <= 1.2 x the small log's after serving as many events",
      met: rssRatioSameWork <= 1.2,
    },
    longPollWake: {
      inProcessSqlite: wakeSqlite,
      acrossProcessesPostgres: wakePostgres,
      target: "p99 < 50 ms",
      met: wakeSqlite.p99Ms < 50 && wakePostgres.p99Ms < 50,
    },
    seedSeconds: { sqlite: scale.seedSeconds, postgres: pgCatchUp.seedSeconds },
  };
}
