/**
 * Writes over HTTP: changes with their events from 1 and 8 concurrent clients against no-op PUTs,
 * and a synchronizer pushing many documents (GET, then PUT, per document) against as many no-op
 * PUTs, with the server's memory sampled along the way. Both databases; servers are `steward
 * serve` children started from the build. `BENCH_SCALE=small` runs the same steps on small numbers.
 */
import type { DatabaseKind } from "../test/helpers/databases.js";
import { CLIENT, CpuPerCall, createSeeded, memoryOf, percentile, round, send, SMALL, startChild, stopChild } from "./support.js";

const WRITES = SMALL ? 80 : 2_000;
/** Documents a synchronizer pushes; `BENCH_SYNC` overrides (the goal is stated for 100,000). */
const SYNC = Number(process.env.BENCH_SYNC ?? (SMALL ? 2_000 : 100_000));
const CLIENTS = 8;
/** Alternating rounds of baseline and changes per client count. */
const ROUNDS = SMALL ? 1 : 5;

async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<number> {
  const headers = { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) };
  const res = await send(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return res.status;
}

/** Runs `total` calls of `one(i)` from `clients` concurrent clients; calls per second. */
async function perSecond(clients: number, total: number, one: (i: number, client: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = next++; i < total; i = next++) await one(i, c);
    }),
  );
  return Math.round(total / ((performance.now() - started) / 1000));
}

async function writes(kind: DatabaseKind) {
  const target = await createSeeded(kind);
  const server = await startChild(target.url);
  const put = async (path: string, name: string) => {
    const status = await call(server.url, target.key, "PUT", path, { name });
    if (status !== 200) throw new Error(`PUT ${path} answered ${status}`);
  };
  try {
    const result: Record<string, unknown> = {};
    for (const clients of [1, CLIENTS]) {
      // 20 teams per client, so concurrent writers change different documents.
      const teams = 20 * clients;
      const path = (i: number) => `/api/teams/w${i % teams}`;
      const same = (i: number) => `team ${i % teams}`;
      // Rounds alternate baseline and measurement, and each figure is the median of its rounds:
      // one round of each is about a second, and this machine's pace drifts by more than the gap.
      const noops: number[] = [];
      const changed: number[] = [];
      const cpu = { noop: new CpuPerCall(server.child.pid!, kind), changes: new CpuPerCall(server.child.pid!, kind) };
      for (let r = 0; r < ROUNDS; r++) {
        await perSecond(clients, teams, (i) => put(path(i), same(i))); // creates them, or puts them back
        noops.push(await cpu.noop.measure(WRITES, () => perSecond(clients, WRITES, (i) => put(path(i), same(i)))));
        changed.push(await cpu.changes.measure(WRITES, () => perSecond(clients, WRITES, (i) => put(path(i), `change ${r} ${i}`))));
      }
      const noop = percentile(noops, 50);
      const changes = percentile(changed, 50);
      result[`clients${clients}`] = {
        changesPerSecond: changes,
        baselineNoopPutsPerSecond: noop,
        ratio: round(changes / noop),
        rounds: { noop: noops, changes: changed },
        cpuMicrosPerCall: { noop: cpu.noop.report(), changes: cpu.changes.report() },
      };
    }
    return { ...result, target: "8 clients >= 0.9", met: (result[`clients${CLIENTS}`] as { ratio: number }).ratio >= 0.9 };
  } finally {
    await stopChild(server);
    await target.drop();
  }
}

/**
 * The reference SDK's asset synchronizer at scale: `SYNC` new assets pushed from 8 clients, GET
 * (404) then PUT per asset, against `SYNC` no-op PUTs of the same assets once they exist (the same
 * server, after the push). The server's RSS is sampled throughout.
 */
async function sync(kind: DatabaseKind) {
  const target = await createSeeded(kind);
  const server = await startChild(target.url);
  const pid = server.child.pid!;
  const atStart = memoryOf(pid).rssMiB;
  // The peak of each tenth of the push on its own: a running peak cannot tell memory that rose
  // once and stayed from memory that keeps rising. The running peaks are derived from these.
  const byTenth: number[] = [];
  let tenthMax = atStart;
  const sampler = setInterval(() => (tenthMax = Math.max(tenthMax, memoryOf(pid).rssMiB)), 100);
  let pushed = 0;
  try {
    // What a warehouse connector sends for a table: source, qualified name, a few columns.
    const body = (i: number) => ({
      info: { source: "snowflake", sourceId: `SALES.PUBLIC.ORDERS_${i}`, type: "snowflake_table", name: `ORDERS_${i}`, qualifiedName: `SALES.PUBLIC.ORDERS_${i}` },
      columns: [
        { name: "ORDER_ID", type: "VARCHAR(36)", description: "Order number" },
        { name: "AMOUNT", type: "NUMBER(10,2)" },
        { name: "PLACED_AT", type: "TIMESTAMP_NTZ" },
      ],
    });
    const cpu = { sync: new CpuPerCall(pid, kind), noop: new CpuPerCall(pid, kind) };
    const synced = await cpu.sync.measure(SYNC, () => perSecond(CLIENTS, SYNC, async (i) => {
      const path = `/api/assets/sales-public-orders-${i}`;
      const found = await call(server.url, target.key, "GET", path);
      if (found !== 404) throw new Error(`GET ${path} answered ${found}`);
      const status = await call(server.url, target.key, "PUT", path, body(i));
      if (status !== 200 && status !== 201) throw new Error(`PUT ${path} answered ${status}`);
      pushed++;
      if (pushed * 10 >= (byTenth.length + 1) * SYNC) {
        byTenth.push(Math.max(tenthMax, memoryOf(pid).rssMiB));
        tenthMax = 0;
      }
    }));
    const noop = await cpu.noop.measure(SYNC, () => perSecond(CLIENTS, SYNC, async (i) => {
      const status = await call(server.url, target.key, "PUT", `/api/assets/sales-public-orders-${i}`, body(i));
      if (status !== 200) throw new Error(`no-op PUT answered ${status}`);
    }));
    const ratio = round(synced / noop);
    // Flat: the second half of the push never needed more memory than the first (within 2 %, a
    // few MiB of pages), so memory does not grow with the number of documents pushed.
    const peak = (from: number, to: number) => Math.max(...byTenth.slice(from, to));
    const memoryFlat = peak(5, 10) <= peak(0, 5) * 1.02;
    return {
      documents: SYNC,
      clients: CLIENTS,
      syncedPerSecond: synced,
      baselineNoopPutsPerSecond: noop,
      ratio,
      cpuMicrosPerCall: { assetSynced: cpu.sync.report(), noopPut: cpu.noop.report() },
      serverMemoryMiB: { atStart, maxRssBy10pct: peak(0, 1), maxRssBy50pct: peak(0, 5), maxRssDuringSync: peak(0, 10), maxRssByTenth: byTenth },
      memoryFlat,
      target: ">= 0.8, memory flat",
      met: ratio >= 0.8 && memoryFlat,
    };
  } finally {
    clearInterval(sampler);
    await stopChild(server);
    await target.drop();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const only = process.env.BENCH_ONLY;
  const result: Record<string, unknown> = { name: "writes", scale: SMALL ? "small" : "full", client: CLIENT };
  if (only !== "sync") result.writes = { sqlite: await writes("sqlite"), postgres: await writes("postgres") };
  if (only !== "writes") result.sync = { sqlite: await sync("sqlite"), postgres: await sync("postgres") };
  return result;
}
