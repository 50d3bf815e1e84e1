/**
 * Lineage ingest over HTTP (docs/lineage.md): OpenLineage run events posted from 8 concurrent
 * clients in batches of 100 events a request against one event a request, on the same `steward
 * serve` child, in alternating rounds; then the server's memory while a large number of events
 * arrives. Both databases. `BENCH_SCALE=small` runs on small numbers; `BENCH_LINEAGE_EVENTS` sets
 * how many events the memory run posts; `BENCH_LINEAGE_PARTS=memory` (or `ingest`) runs one part only;
 * `BENCH_LINEAGE_DATABASE=sqlite` (or `postgres`) one database only; `BENCH_LINEAGE_ROUNDS` sets
 * the rounds of each kind (3), more for a steadier median on a busy machine. `BENCH_LINEAGE_CPU_PROF=<folder>`
 * has each measured server write a V8 CPU profile there (`node --cpu-prof`) as it stops.
 */
import { randomUUID } from "node:crypto";
import type { DatabaseKind } from "../test/helpers/databases.js";
import { CLIENT, CpuPerCall, createSeeded, memoryOf, percentile, round, send, SMALL, startChild, stopChild } from "./support.js";

const CLIENTS = 8;
const BATCH = 100;
/** Events per round, each way. */
const ROUND_EVENTS = SMALL ? 400 : 1_000;
const ROUNDS = Number(process.env.BENCH_LINEAGE_ROUNDS ?? (SMALL ? 1 : 3));
/** Events the memory run posts (in batches); the figure to raise for a long run. */
const MEMORY_EVENTS = Number(process.env.BENCH_LINEAGE_EVENTS ?? (SMALL ? 5_000 : 20_000));
/** Distinct jobs the events come from, as a warehouse's nightly models would. */
const JOBS = 400;
const ON = (process.env.BENCH_LINEAGE_DATABASE ?? "sqlite,postgres").split(",") as DatabaseKind[];
const CPU_PROFILE_DIR = process.env.BENCH_LINEAGE_CPU_PROF;

const producer = "https://github.com/OpenLineage/OpenLineage/tree/1.23.0/integration/dbt";
const facet = (schema: string) => ({ _producer: producer, _schemaURL: `https://openlineage.io/spec/facets/${schema}` });

/**
 * A dbt-ol model run, as the integration sends it: it reads the orders port of another product and
 * a staging table, writes its own table with column lineage. Every run reads the port without an
 * access, so each event also goes through the agreement check (recorded once per job and day).
 */
function event(i: number): object {
  const job = `reporting.marts.model_${i % JOBS}`;
  const orders = { namespace: "postgres://db:5432", name: "shop.public.orders" };
  return {
    eventType: "COMPLETE",
    eventTime: new Date(Date.UTC(2026, 5, 1) + i * 1000).toISOString(),
    producer,
    schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    run: { runId: randomUUID(), facets: { processing_engine: { ...facet("1-1-1/ProcessingEngineRunFacet.json"), name: "dbt", version: "1.8.2" } } },
    job: { namespace: "dbt", name: job, facets: { jobType: { ...facet("2-0-2/JobTypeJobFacet.json"), processingType: "BATCH", integration: "DBT", jobType: "MODEL" } } },
    inputs: [
      { ...orders, facets: { schema: { ...facet("1-1-1/SchemaDatasetFacet.json"), fields: [{ name: "order_id", type: "uuid" }, { name: "amount", type: "numeric" }, { name: "placed_at", type: "timestamp" }] } } },
      { namespace: "postgres://db:5432", name: `shop.staging.stg_${i % JOBS}`, facets: {} },
    ],
    outputs: [
      {
        namespace: "bigquery",
        name: `acme.reports.model_${i % JOBS}`,
        facets: {
          columnLineage: {
            ...facet("1-2-0/ColumnLineageDatasetFacet.json"),
            fields: {
              day: { inputFields: [{ ...orders, field: "placed_at", transformations: [{ type: "DIRECT", subtype: "TRANSFORMATION" }] }] },
              revenue: { inputFields: [{ ...orders, field: "amount", transformations: [{ type: "DIRECT", subtype: "AGGREGATION" }] }] },
            },
          },
        },
      },
    ],
  };
}

let sequence = 0;

/**
 * One post, sent again when the kept-alive connection was reset under it (the server may close an
 * idle one as the client reuses it): a repeated event is stored once, so sending again is safe.
 */
async function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(url, { method: "POST", headers, body, text: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ECONNRESET" || attempt === 3) throw error;
    }
  }
}

/** Posts `total` events from CLIENTS clients, `perRequest` a request; events per second. */
async function ingest(url: string, key: string, total: number, perRequest: number, onBatch?: () => void): Promise<number> {
  const requests = Math.ceil(total / perRequest);
  const headers = { "x-api-key": key, "content-type": "application/json" };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next++ < requests) {
        const events = Array.from({ length: perRequest }, () => event(sequence++));
        const body = JSON.stringify(perRequest === 1 ? events[0] : events);
        const res = await post(`${url}/api/v1/lineage?dataProductId=reporting`, headers, body);
        if (res.status !== 200) throw new Error(`POST /api/v1/lineage answered ${res.status}: ${res.text}`);
        onBatch?.();
      }
    }),
  );
  return Math.round((requests * perRequest) / ((performance.now() - started) / 1000));
}

async function setUp(kind: DatabaseKind) {
  const target = await createSeeded(kind);
  const server = await startChild(target.url, {}, CPU_PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-dir", CPU_PROFILE_DIR] : []);
  const put = async (path: string, body: unknown) => {
    const res = await send(`${server.url}${path}`, { method: "PUT", headers: { "x-api-key": target.key, "content-type": "application/json" }, body: JSON.stringify(body), text: true });
    if (res.status !== 200) throw new Error(`PUT ${path} answered ${res.status}: ${res.text}`);
  };
  await put("/api/teams/sales", { name: "Sales" });
  await put("/api/teams/analytics", { name: "Analytics" });
  const product = (title: string, owner: string, outputPorts: object[]) => ({ dataProductSpecification: "0.0.1", info: { title, owner }, outputPorts });
  await put("/api/dataproducts/orders", product("Orders", "sales", [{ id: "pg", type: "postgres", server: { host: "db", database: "shop", schema: "public", table: "orders" } }]));
  await put("/api/dataproducts/reporting", product("Reporting", "analytics", [{ id: "bq", type: "bigquery", server: { project: "acme", dataset: "reports" } }]));
  return { target, server };
}

async function ratio(kind: DatabaseKind) {
  const { target, server } = await setUp(kind);
  try {
    const cpu = { single: new CpuPerCall(server.child.pid!, kind), batch: new CpuPerCall(server.child.pid!, kind) };
    // Warm both paths, then alternate: this shared machine's pace drifts by more than a round.
    await ingest(server.url, target.key, ROUND_EVENTS / 4, 1);
    await ingest(server.url, target.key, ROUND_EVENTS, BATCH);
    const singles: number[] = [];
    const batches: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      singles.push(await cpu.single.measure(ROUND_EVENTS, () => ingest(server.url, target.key, ROUND_EVENTS, 1)));
      batches.push(await cpu.batch.measure(ROUND_EVENTS, () => ingest(server.url, target.key, ROUND_EVENTS, BATCH)));
    }
    const single = percentile(singles, 50);
    const batch = percentile(batches, 50);
    const value = round(batch / single);
    return {
      eventsPerRound: ROUND_EVENTS,
      clients: CLIENTS,
      batchEventsPerSecond: batch,
      singleEventsPerSecond: single,
      ratio: value,
      rounds: { single: singles, batch: batches },
      cpuMicrosPerEvent: { single: cpu.single.report(), batch: cpu.batch.report() },
      target: ">= 10",
      met: value >= 10,
    };
  } finally {
    await stopChild(server);
    await target.drop();
  }
}

/** The server's memory while MEMORY_EVENTS arrive in batches: the peak of each tenth, flat when the second half never needs more than the first. */
async function memory(kind: DatabaseKind) {
  const { target, server } = await setUp(kind);
  const pid = server.child.pid!;
  const atStart = memoryOf(pid).rssMiB;
  const byTenth: number[] = [];
  let tenthMax = atStart;
  const sampler = setInterval(() => (tenthMax = Math.max(tenthMax, memoryOf(pid).rssMiB)), 100);
  let posted = 0;
  try {
    const rate = await ingest(server.url, target.key, MEMORY_EVENTS, BATCH, () => {
      posted += BATCH;
      if (posted * 10 >= (byTenth.length + 1) * MEMORY_EVENTS) {
        byTenth.push(Math.max(tenthMax, memoryOf(pid).rssMiB));
        tenthMax = 0;
      }
    });
    const atEnd = memoryOf(pid).rssMiB;
    const peak = (from: number, to: number) => Math.max(...byTenth.slice(from, to));
    const memoryFlat = peak(5, 10) <= peak(0, 5) * 1.02;
    return { events: MEMORY_EVENTS, eventsPerSecond: rate, serverMemoryMiB: { atStart, atEnd, maxRssByTenth: byTenth }, memoryFlat, target: "flat", met: memoryFlat };
  } finally {
    clearInterval(sampler);
    await stopChild(server);
    await target.drop();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = { name: "lineage", scale: SMALL ? "small" : "full", client: CLIENT, batch: BATCH };
  const parts = (process.env.BENCH_LINEAGE_PARTS ?? "ingest,memory").split(",");
  const each = async (measure: (kind: DatabaseKind) => Promise<Record<string, unknown>>) => {
    const figures: Record<string, unknown> = {};
    for (const kind of ON) figures[kind] = await measure(kind);
    return figures;
  };
  if (parts.includes("ingest")) result.ingest = await each(ratio);
  if (parts.includes("memory")) result.memory = await each(memory);
  return result;
}
