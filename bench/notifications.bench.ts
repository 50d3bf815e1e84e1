/**
 * Notification fan-out (docs/product.md §10, docs/notifications.md): access requests made through
 * the API, each notified to 20 `webhook` channels of the provider team on loopback receivers, and
 * delivered by the server's own background pass. Three figures, each against a baseline of the
 * same run:
 * - delivered per second, from the first delivery received to the last (the server derives the
 *   rest of the backlog meanwhile), against the same POSTs (same receivers, same bodies) sent by
 *   a bare `node:http` loop with kept-alive connections (goal ≥ 0.5);
 * - the server's memory, sampled every 100 ms through the fan-out (goal: flat);
 * - the p99 of `GET /api/dataproducts/{id}` during the fan-out against the same once it is over
 *   (goal ≤ 2).
 * `BENCH_NOTIFY_EVENTS` sets the number of events (2,000 by default, 10,000 for the full run);
 * `BENCH_SCALE=small` runs 200. `BENCH_NOTIFY_CPU_PROF=<folder>` has the measured server write a
 * V8 CPU profile there (`node --cpu-prof`) as it stops; `BENCH_NOTIFY_DATABASE=sqlite` (or
 * `postgres`) runs one database only.
 */
import { serve, type ServeProcess } from "../test/helpers/cli.js";
import type { DatabaseKind } from "../test/helpers/databases.js";
import { startBareSender, startReceivers, type Receivers } from "./notification-peers.js";
import { CLIENT, cpuSecondsOf, createSeeded, memoryOf, percentile, round, send, SMALL, stopChild } from "./support.js";

const EVENTS = Number(process.env.BENCH_NOTIFY_EVENTS ?? (SMALL ? 200 : 2_000));
const CHANNELS = 20;
/** Clients making the access requests (before the fan-out; not measured). */
const WRITERS = 8;
/** One GET at a time, this far apart, for the latency figures. */
const PROBE_GAP_MS = 5;
const CPU_PROFILE_DIR = process.env.BENCH_NOTIFY_CPU_PROF;
const QUIET_PROBES = 300;

/**
 * A server from the build, as `startChild` starts one, given two minutes to start: on this shared
 * machine, under the load of other work, a start took more than the usual 20 seconds.
 */
function startChild(url: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<ServeProcess> {
  return serve({ DATABASE_URL: url, STEWARD_BOOTSTRAP: "false", APP_URL: "http://steward.bench", ...env }, { fromBuild: true, startTimeoutMs: 120_000, nodeArgs });
}

async function api(server: ServeProcess, key: string, method: string, path: string, body?: unknown) {
  const res = await send(`${server.url}${path}`, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    text: true,
  });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.text;
}

/** Teams, data products, the channels and `EVENTS` access requests, through the API of a server that derives nothing meanwhile. */
async function prepare(url: string, key: string, receivers: Receivers): Promise<void> {
  // Its pass runs once as it starts and then not for an hour: the events wait, underived, for the measured server.
  const writer = await startChild(url, { NOTIFY_ALLOW_PRIVATE_NETWORKS: "true", NOTIFY_POLL_MS: "3600000" });
  try {
    await api(writer, key, "PUT", "/api/teams/sales", { name: "Sales" });
    await api(writer, key, "PUT", "/api/teams/marketing", { name: "Marketing" });
    await api(writer, key, "PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres" }] });
    await api(writer, key, "PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing" } });
    for (let c = 0; c < CHANNELS; c++) {
      await api(writer, key, "PUT", `/api/teams/sales/notification-channels/hook-${c}`, { name: `hook ${c}`, type: "webhook", endpoint: receivers.endpoints[c], enabled: true });
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        for (let n = next++; n < EVENTS; n = next++) {
          await api(writer, key, "PUT", `/api/access/req-${n}`, { info: { purpose: "Attribution" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { dataProductId: "campaigns" } });
        }
      }),
    );
  } finally {
    await stopChild(writer);
  }
}

/** p99 and median of GETs sent one at a time `PROBE_GAP_MS` apart, while `going()` holds or `count` times. */
async function probe(url: string, key: string, going: () => boolean, count = Infinity) {
  const times: number[] = [];
  while (times.length < count && going()) {
    const started = performance.now();
    const res = await send(`${url}/api/dataproducts/orders`, { headers: { "x-api-key": key } });
    if (res.status !== 200) throw new Error(`GET /api/dataproducts/orders answered ${res.status}`);
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, PROBE_GAP_MS));
  }
  return { requests: times.length, p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)) };
}

async function fanOut(kind: DatabaseKind) {
  const target = await createSeeded(kind);
  const receivers = await startReceivers(CHANNELS);
  const bare = await startBareSender();
  const total = EVENTS * CHANNELS;
  try {
    await prepare(target.url, target.key, receivers);
    await receivers.reset();

    // The measured server: its first pass starts as it listens.
    const server = await startChild(target.url, { NOTIFY_ALLOW_PRIVATE_NETWORKS: "true" }, CPU_PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-dir", CPU_PROFILE_DIR] : []);
    const started = Date.now();
    const pid = server.child.pid!;
    const cpu = { server: cpuSecondsOf(pid), receivers: cpuSecondsOf(receivers.pid) };
    const samples: Array<{ at: number; rssMiB: number }> = [];
    const sampler = setInterval(() => samples.push({ at: Date.now(), rssMiB: memoryOf(pid).rssMiB }), 100);
    let done = false;
    let during: Awaited<ReturnType<typeof probe>>;
    let counts: Awaited<ReturnType<Receivers["counts"]>>;
    let quiet: Awaited<ReturnType<typeof probe>>;
    try {
      const probing = probe(server.url, target.key, () => !done);
      const deadline = Date.now() + 30 * 60_000;
      for (;;) {
        counts = await receivers.counts();
        if (counts.received >= total) break;
        if (Date.now() > deadline) throw new Error(`${counts.received} of ${total} deliveries in 30 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      done = true;
      cpu.server = cpuSecondsOf(pid) - cpu.server;
      cpu.receivers = cpuSecondsOf(receivers.pid) - cpu.receivers;
      during = await probing;
      clearInterval(sampler);
      quiet = await probe(server.url, target.key, () => true, QUIET_PROBES);
    } finally {
      clearInterval(sampler);
      await stopChild(server);
    }
    const seconds = (counts.lastAt - counts.firstAt) / 1000;
    const delivered = Math.round(total / seconds);

    // The same POSTs, same receivers, from a bare loop: with kept-alive connections (the goal's
    // baseline), and with a new connection each, as the deliverer connects.
    const sample = await receivers.sample();
    await receivers.reset();
    const bareCpu = { sender: cpuSecondsOf(bare.pid), receivers: cpuSecondsOf(receivers.pid) };
    const keptAlive = await bare.send(receivers.endpoints, sample, EVENTS, true);
    bareCpu.sender = cpuSecondsOf(bare.pid) - bareCpu.sender;
    bareCpu.receivers = cpuSecondsOf(receivers.pid) - bareCpu.receivers;
    await receivers.reset();
    const fresh = await bare.send(receivers.endpoints, sample, EVENTS, false);

    const micros = (seconds: number) => Math.round((seconds * 1e6) / total);
    const inFanOut = samples.filter((s) => s.at <= counts.lastAt);
    const byTenth = Array.from({ length: 10 }, (_, i) => {
      const slice = inFanOut.slice(Math.floor((i * inFanOut.length) / 10), Math.floor(((i + 1) * inFanOut.length) / 10));
      return slice.length > 0 ? Math.max(...slice.map((s) => s.rssMiB)) : NaN;
    });
    const peak = (from: number, to: number) => Math.max(...byTenth.slice(from, to).filter((x) => !Number.isNaN(x)));
    const memoryFlat = peak(5, 10) <= peak(0, 5) * 1.02;
    const ratio = round(delivered / keptAlive.perSecond);
    const p99Ratio = round(during.p99Ms / quiet.p99Ms);
    return {
      events: EVENTS,
      channels: CHANNELS,
      deliveries: total,
      deliveredPerSecond: delivered,
      secondsFirstToLast: round(seconds, 1),
      secondsFromListeningToFirstDelivery: round((counts.firstAt - started) / 1000, 1),
      baselineBareKeptAlivePerSecond: keptAlive.perSecond,
      bareNewConnectionPerSecond: fresh.perSecond,
      ratio,
      ratioToNewConnections: round(delivered / fresh.perSecond),
      // CPU time per POST, steadier than the rates on a shared machine: the server's includes
      // deriving the deliveries and recording each; the bare loop's is its sending alone.
      cpuMicrosPerPost: {
        server: micros(cpu.server),
        receiversDuringFanOut: micros(cpu.receivers),
        bareSender: micros(bareCpu.sender),
        receiversDuringBare: micros(bareCpu.receivers),
      },
      cpuRatio: round(bareCpu.sender / cpu.server),
      serverMemoryMiB: { maxRssByTenth: byTenth, atEnd: inFanOut.at(-1)?.rssMiB },
      memoryFlat,
      apiDuringFanOut: during,
      apiQuietAfter: quiet,
      p99Ratio,
      target: "delivered >= 0.5 × bare loop, memory flat, API p99 during ≤ 2 × quiet",
      met: { ratio: ratio >= 0.5, memoryFlat, p99: p99Ratio <= 2 },
    };
  } finally {
    bare.stop();
    await receivers.stop();
    await target.drop();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const only = process.env.BENCH_NOTIFY_DATABASE;
  return {
    name: "notifications",
    events: EVENTS,
    client: CLIENT,
    sqlite: only === "postgres" ? undefined : await fanOut("sqlite"),
    postgres: only === "sqlite" ? undefined : await fanOut("postgres"),
  };
}
