/**
 * Per-request overhead: an authenticated `GET /api/teams/{id}` against an unauthenticated
 * `GET /health/live` on the same `steward serve` child, sent by the same client loop from 8
 * concurrent clients. Both databases. `BENCH_SCALE=small` runs it on small numbers.
 *
 * A second, explanatory baseline: `GET /health/ready`, which needs no key and runs one trivial
 * query. Its rate is the ceiling of any request that makes one database round trip, and shows how
 * much of the gap to `/health/live` is the key check and how much is reading the team at all.
 */
import type { DatabaseKind } from "../test/helpers/databases.js";
import { CLIENT, cpuSecondsOf, createSeeded, round, send, SMALL, startChild, stopChild } from "./support.js";

const REQUESTS = SMALL ? 400 : 8_000;
const CLIENTS = 8;

async function rate(url: string, headers: Record<string, string>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next++ < REQUESTS) {
        const { status } = await send(url, { headers });
        if (status !== 200) throw new Error(`GET ${url} answered ${status}`);
      }
    }),
  );
  return Math.round(REQUESTS / ((performance.now() - started) / 1000));
}

async function overhead(kind: DatabaseKind) {
  const target = await createSeeded(kind);
  const server = await startChild(target.url);
  try {
    const key = { "x-api-key": target.key };
    const res = await send(`${server.url}/api/teams/bench`, { method: "PUT", headers: { ...key, "content-type": "application/json" }, body: '{"name":"Bench"}' });
    if (res.status !== 200 && res.status !== 201) throw new Error(`PUT answered ${res.status}`);
    const team = `${server.url}/api/teams/bench`;
    const live = `${server.url}/health/live`;
    const ready = `${server.url}/health/ready`;
    // Warm both paths up, then alternate rounds so drifting load on the machine hits both alike.
    await rate(live, {});
    await rate(team, key);
    await rate(ready, {});
    const lives: number[] = [];
    const readies: number[] = [];
    const teams: number[] = [];
    // CPU per request of the server and of this process (the client), summed over the rounds: the
    // client shares the machine's cores with the server, so what it costs moves every rate.
    const cpu = { live: { server: 0, client: 0 }, ready: { server: 0, client: 0 }, team: { server: 0, client: 0 } };
    const measured = async (which: keyof typeof cpu, work: () => Promise<number>) => {
      const [server0, client0] = [cpuSecondsOf(server.child.pid!), process.cpuUsage()];
      const perSecond = await work();
      const client = process.cpuUsage(client0);
      cpu[which].server += cpuSecondsOf(server.child.pid!) - server0;
      cpu[which].client += (client.user + client.system) / 1e6;
      return perSecond;
    };
    for (let r = 0; r < 3; r++) {
      lives.push(await measured("live", () => rate(live, {})));
      readies.push(await measured("ready", () => rate(ready, {})));
      teams.push(await measured("team", () => rate(team, key)));
    }
    const micros = ({ server, client }: { server: number; client: number }) => ({
      server: Math.round((server * 1e6) / (3 * REQUESTS)),
      client: Math.round((client * 1e6) / (3 * REQUESTS)),
    });
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
    const ratio = round(median(teams) / median(lives));
    return {
      requests: REQUESTS,
      clients: CLIENTS,
      authenticatedGetPerSecond: median(teams),
      baselineHealthLivePerSecond: median(lives),
      ratio,
      target: ">= 0.5",
      met: ratio >= 0.5,
      oneQueryHealthReadyPerSecond: median(readies),
      ratioToHealthReady: round(median(teams) / median(readies)),
      cpuMicrosPerRequest: { healthLive: micros(cpu.live), healthReady: micros(cpu.ready), authenticatedGet: micros(cpu.team) },
    };
  } finally {
    await stopChild(server);
    await target.drop();
  }
}

export async function run(): Promise<Record<string, unknown>> {
  return { name: "requests", scale: SMALL ? "small" : "full", client: CLIENT, sqlite: await overhead("sqlite"), postgres: await overhead("postgres") };
}
