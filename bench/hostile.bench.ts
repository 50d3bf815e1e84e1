/**
 * Hostile requests: the worst single request time of each hostile family that
 * `test/resource-limits.test.ts` and its neighbours send (goal: under a second each), against a
 * small JSON write to the same server as the baseline; and `/health/live` p99 while 8 clients
 * flood the server with 64 KB many-key YAML bodies, against its p99 when the server is quiet
 * (goal: at most 3 times). SQLite, one `steward serve` child from the build, its worker threads
 * started by one big body before anything is measured.
 */
import { createSeeded, percentile, round, send, SMALL, startChild, stopChild } from "./support.js";

const REPEATS = 3;
const HEALTH_SAMPLES = SMALL ? 100 : 300;

interface Sent {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
}

const json = (method: string, path: string, value: unknown): Sent => ({ method, path, body: JSON.stringify(value), contentType: "application/json" });

/** Definitions in layers, each using the next three times, each with a long description: 6 KB. */
function layeredDcs(version: string) {
  const description = `A long description that every use of this definition would repeat. ${"x".repeat(380)}`;
  const definitions: Record<string, unknown> = { d9: { type: "string", description } };
  for (let i = 8; i >= 0; i--) {
    const next = { $ref: `#/definitions/d${i + 1}` };
    definitions[`d${i}`] = { type: "object", description, fields: { a: next, b: next, c: next } };
  }
  return {
    dataContractSpecification: "1.2.1", id: "layered", info: { title: "Layered", version, owner: "bench" },
    models: { m: { fields: { root: { $ref: "#/definitions/d0" }, again: { $ref: "#/definitions/d1" } } } },
    definitions,
  };
}

function avroBomb(levels: number): string {
  let inner: unknown = { type: "record", name: `T${levels}`, fields: [{ name: "v", type: "string" }] };
  for (let i = levels - 1; i >= 0; i--) inner = { type: "record", name: `T${i}`, fields: [{ name: "a", type: inner }, { name: "b", type: `T${i + 1}` }] };
  return JSON.stringify(inner);
}

/** A team as YAML with many keys under `custom` and a name that is not text (422 once parsed). */
function manyKeysYaml(keys: number): string {
  return ["name: 42", "custom:", ...Array.from({ length: keys }, (_, i) => `  k${i}: v${i}`)].join("\n") + "\n";
}

const odcs = (prefix: string) => ({
  apiVersion: "v3.0.2", kind: "DataContract", id: "many", version: "1.0.0", status: "active", domain: "bench",
  schema: [{ name: "m", properties: Array.from({ length: 150 }, (_, i) => ({ name: `${prefix}${i}`, logicalType: i % 2 ? "string" : "integer" })) }],
});

const bomb: Record<string, unknown> = Object.fromEntries(
  Array.from({ length: 40 }, (_, i) => [`d${i}`, { type: "object", fields: { a: { $ref: `#/definitions/d${i + 1}` }, b: { $ref: `#/definitions/d${i + 1}` } } }]),
);
bomb.d40 = { type: "string" };

const aliasBomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(", ")}]`)].join("\n");

/** Each family: what is stored first, then the hostile request timed. */
const FAMILIES: Array<{ name: string; setup?: Sent[]; request: Sent }> = [
  { name: "DCS layered definitions: models", setup: [json("PUT", "/api/datacontracts/layered", layeredDcs("1.0.0")), json("PUT", "/api/datacontracts/layered", layeredDcs("1.1.0"))], request: { method: "GET", path: "/api/datacontracts/layered/models" } },
  { name: "DCS layered definitions: format=odcs", request: { method: "GET", path: "/api/datacontracts/layered?format=odcs" } },
  { name: "DCS layered definitions: changes", request: { method: "GET", path: "/api/datacontracts/layered/changes" } },
  { name: "DCS definitions used twice in 40 layers: write", request: json("PUT", "/api/datacontracts/bomb", { dataContractSpecification: "1.1.0", id: "bomb", info: { title: "B", version: "1.0.0", owner: "bench" }, models: { m: { fields: { x: { $ref: "#/definitions/d0" } } } }, definitions: bomb }) },
  { name: "Avro named types used twice in 24 layers: models", setup: [json("PUT", "/api/datacontracts/avro", { dataContractSpecification: "0.9.3", info: { title: "A", version: "1.0.0", owner: "bench" }, schema: { type: "avro", specification: avroBomb(24) } })], request: { method: "GET", path: "/api/datacontracts/avro/models" } },
  { name: "300 changes of one comparison", setup: [json("PUT", "/api/datacontracts/many", odcs("a")), json("PUT", "/api/datacontracts/many", odcs("b"))], request: { method: "GET", path: "/api/datacontracts/many/changes" } },
  { name: "64 KB many-key YAML body", request: { method: "PUT", path: "/api/teams/yaml", body: manyKeysYaml(6_000), contentType: "application/yaml" } },
  { name: "YAML alias bomb", request: { method: "PUT", path: "/api/teams/alias", body: aliasBomb, contentType: "application/yaml" } },
  { name: "JSON nested 100,000 levels", request: { method: "PUT", path: "/api/teams/deep", body: "[".repeat(100_000) + "]".repeat(100_000), contentType: "application/json" } },
  { name: "read-only key's 1 MB write", request: { method: "PUT", path: "/api/teams/bench", body: manyKeysYaml(90_000), contentType: "application/yaml" } },
];

async function timed(base: string, key: string, sent: Sent): Promise<{ ms: number; status: number; bytes: number }> {
  const started = performance.now();
  const headers: Record<string, string> = { "x-api-key": key, ...(sent.contentType ? { "content-type": sent.contentType } : {}) };
  const res = await send(`${base}${sent.path}`, { method: sent.method, headers, body: sent.body, text: true });
  return { ms: performance.now() - started, status: res.status, bytes: Buffer.byteLength(res.text) };
}

async function healthP99(base: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < HEALTH_SAMPLES; i++) {
    const started = performance.now();
    const { status } = await send(`${base}/health/live`);
    if (status !== 200) throw new Error(`/health/live answered ${status}`);
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return percentile(times, 99);
}

export async function run(): Promise<Record<string, unknown>> {
  const target = await createSeeded("sqlite");
  const server = await startChild(target.url);
  try {
    const base = server.url;
    const key = target.key;
    const must = async (sent: Sent, ...ok: number[]) => {
      const res = await timed(base, key, sent);
      if (!ok.includes(res.status)) throw new Error(`${sent.method} ${sent.path} answered ${res.status}`);
      return res;
    };
    await must(json("PUT", "/api/teams/bench", { name: "Bench" }), 200, 201);
    const readOnly = await send(`${base}/api/api-keys`, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ scope: "team_read", teamId: "bench" }), text: true });
    const readOnlyKey = (JSON.parse(readOnly.text) as { key: string }).key;

    // The worker threads start with the first big body, as on a server that has been running a while.
    await must({ method: "PUT", path: "/api/teams/warm", body: manyKeysYaml(500), contentType: "application/yaml" }, 422);
    // The baseline: the worst of as many small JSON writes.
    let baselineMs = 0;
    for (let i = 0; i < REPEATS + 1; i++) {
      const { ms } = await must(json("PUT", "/api/teams/bench", { name: `Bench ${i}` }), 200);
      if (i > 0) baselineMs = Math.max(baselineMs, ms);
    }

    const families: Record<string, { worstMs: number; status: number; answerBytes: number; ratio: number; goalMet: boolean }> = {};
    for (const family of FAMILIES) {
      for (const sent of family.setup ?? []) await must(sent, 200, 201);
      let worst = { ms: 0, status: 0, bytes: 0 };
      for (let i = 0; i < REPEATS; i++) {
        const res = await timed(base, family.name.startsWith("read-only") ? readOnlyKey : key, family.request);
        if (res.status >= 500) throw new Error(`${family.name}: answered ${res.status}`);
        if (res.ms > worst.ms) worst = res;
      }
      families[family.name] = { worstMs: round(worst.ms, 1), status: worst.status, answerBytes: worst.bytes, ratio: round(worst.ms / baselineMs, 1), goalMet: worst.ms < 1000 };
    }

    // /health/live p99, quiet and under a flood of 64 KB many-key YAML bodies from 8 clients.
    const quiet = await healthP99(base);
    const flood = manyKeysYaml(6_000);
    let stop = false;
    let floodRequests = 0;
    const statuses = new Map<number, number>();
    const flooding = Promise.all(
      Array.from({ length: 8 }, async (_, c) => {
        while (!stop) {
          const res = await timed(base, key, { method: "PUT", path: `/api/teams/flood-${c}`, body: flood, contentType: "application/yaml" });
          floodRequests++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const flooded = await healthP99(base);
    stop = true;
    await flooding;

    return {
      name: "hostile requests",
      baselineSmallWriteMs: round(baselineMs, 1),
      families,
      allUnderASecond: Object.values(families).every((f) => f.goalMet),
      healthP99QuietMs: round(quiet, 1),
      healthP99FloodMs: round(flooded, 1),
      healthP99Ratio: round(flooded / quiet, 2),
      healthGoalMet: flooded / quiet <= 3,
      flood: { requests: floodRequests, statuses: Object.fromEntries(statuses) },
    };
  } finally {
    await stopChild(server);
    await target.drop();
  }
}
