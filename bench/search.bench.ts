/**
 * Search at scale (docs/product.md §14): the p95 latency of `GET /api/search` over a catalog of N
 * assets against the same over N/100, and the time an asset write takes with the search index
 * against without it. Both databases; servers are `steward serve` children from the build.
 * `BENCH_SEARCH_ASSETS` sets N (1,000,000 for the goal's own scale), with one data contract per
 * 100 assets; the catalogs are written in bulk before their servers start (`search-seed.ts`).
 * `BENCH_SEARCH_PARTS` (`latency,writes`) and `BENCH_SEARCH_DATABASES` (`sqlite,postgres`) run some
 * of it only; `BENCH_SCALE=small` runs on small numbers.
 */
import { sql } from "kysely";
import type { DatabaseKind } from "../test/helpers/databases.js";
import { CLIENT, createSeeded, percentile, round, send, SMALL, startChild, stopChild, withDatabase, type Seeded } from "./support.js";
import { bulkAssets, contracts } from "./search-seed.js";
import type { ServeProcess } from "../test/helpers/cli.js";

const ASSETS = Number(process.env.BENCH_SEARCH_ASSETS ?? (SMALL ? 2_000 : 10_000));
const CLIENTS = 8;
/** One data contract per this many assets: 10,000 beside 1,000,000 assets, as the goal states. */
const CONTRACT_SHARE = 100;
/** `latency`, `writes` or both (the default): the parts to run. */
const PARTS = (process.env.BENCH_SEARCH_PARTS ?? "latency,writes").split(",");
/** `sqlite`, `postgres` or both (the default): the databases to run on. */
const ON = (process.env.BENCH_SEARCH_DATABASES ?? "sqlite,postgres").split(",") as DatabaseKind[];
/** Searches of each kind per round and catalog, one at a time (latency, not throughput). */
const SEARCHES = SMALL ? 60 : 100;
const ROUNDS = SMALL ? 1 : 3;
/** New assets per round and database in the write comparison. */
const WRITES = SMALL ? 200 : 500;
const WRITE_ROUNDS = SMALL ? 1 : 3;

const DOMAINS = Array.from({ length: 20 }, (_, i) => `domain${String.fromCharCode(97 + i)}`);
const REGIONS = Array.from({ length: 50 }, (_, i) => `zone${i}x`);
const pad = (i: number) => String(i).padStart(7, "0");

/**
 * What a warehouse connector sends for a table. Its name is one document's own (`orders_0004821`);
 * `cohort<k>x` is held by 50 documents whatever the catalog's size; `zone<k>x` by 2 % of them.
 */
function asset(i: number) {
  return {
    info: {
      source: "snowflake",
      sourceId: `SALES.PUBLIC.ORDERS_${pad(i)}`,
      type: "snowflake_table",
      name: `orders_${pad(i)}`,
      qualifiedName: `SALES.PUBLIC.ORDERS_${pad(i)}`,
      description: `Nightly snapshot of the ${DOMAINS[i % DOMAINS.length]} ledger for ${REGIONS[i % REGIONS.length]}, cohort${Math.floor(i / 50)}x.`,
    },
    columns: [
      { name: "ORDER_ID", type: "VARCHAR(36)", description: "Order number" },
      { name: "AMOUNT", type: "NUMBER(10,2)" },
    ],
  };
}

async function perSecond(total: number, one: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    for (let i = next++; i < total; i = next++) await one(i);
  }));
  return Math.round(total / ((performance.now() - started) / 1000));
}

async function putAsset(server: ServeProcess, key: string, i: number): Promise<void> {
  const res = await send(`${server.url}/api/assets/orders-${pad(i)}`, { method: "PUT", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(asset(i)), text: true });
  if (res.status !== 200 && res.status !== 201) throw new Error(`PUT asset answered ${res.status}: ${res.text}`);
}

interface Catalog {
  target: Seeded;
  server: ServeProcess;
  size: number;
  seedSeconds: { assets: number; contracts: number };
}

/**
 * A data contract as a team writes one (ODCS). `cohort<k>x` and `zone<k>x` are in its purpose
 * too, so searches rank contracts among the assets.
 */
function contract(i: number) {
  return {
    apiVersion: "v3.1.0",
    kind: "DataContract",
    id: `contract-${i}`,
    version: "1.0.0",
    status: "active",
    name: `orders_contract_${pad(i)}`,
    description: { purpose: `Orders of the ${DOMAINS[i % DOMAINS.length]} ledger for ${REGIONS[i % REGIONS.length]}, cohort${Math.floor(i / 50)}x.` },
  };
}

/** Seconds since `started`, for the log of how long seeding took. */
const since = (started: number) => round((performance.now() - started) / 1000, 1);

async function catalog(kind: DatabaseKind, size: number): Promise<Catalog> {
  const target = await createSeeded(kind);
  const started = performance.now();
  await bulkAssets(target, size, (i) => `orders-${pad(i)}`, asset);
  const assetsSeconds = since(started);
  const contractCount = Math.max(1, Math.round(size / CONTRACT_SHARE));
  await contracts(target, contractCount, contract);
  const seedSeconds = { assets: assetsSeconds, contracts: round(since(started) - assetsSeconds, 1) };
  console.log(`search ${kind}: ${size} assets in ${seedSeconds.assets} s, ${contractCount} contracts in ${seedSeconds.contracts} s`);
  const server = await startChild(target.url);
  return { target, server, size, seedSeconds };
}

const KINDS = {
  /** A name as a person types it whole: one document. */
  name: (c: Catalog, n: number) => `orders_${pad((n * 7919) % c.size)}`,
  /** A word 50 documents hold, in either catalog. */
  fixed: (_c: Catalog, n: number) => `cohort${n % 2}x`,
  /** A word 2 % of the catalog holds: the answer's first page is ranked out of all of them. */
  share: (_c: Catalog, n: number) => REGIONS[n % REGIONS.length],
} as const;

async function latencies(c: Catalog, query: (n: number) => string): Promise<number[]> {
  const times: number[] = [];
  for (let n = 0; n < SEARCHES; n++) {
    const started = performance.now();
    const res = await send(`${c.server.url}/api/search?query=${encodeURIComponent(query(n))}`, { headers: { "x-api-key": c.target.key }, text: true });
    times.push(performance.now() - started);
    if (res.status !== 200 || res.text.includes('"results":[]')) throw new Error(`GET /api/search answered ${res.status}: ${res.text.slice(0, 200)}`);
  }
  return times;
}

async function searchScale(kind: DatabaseKind) {
  const big = await catalog(kind, ASSETS);
  const small = await catalog(kind, Math.max(100, Math.round(ASSETS / 100)));
  try {
    const all = { big: [] as number[], small: [] as number[] };
    const byKind: Record<string, { big: number[]; small: number[] }> = {};
    for (const name of Object.keys(KINDS)) byKind[name] = { big: [], small: [] };
    for (const c of [big, small]) for (const q of Object.values(KINDS)) await latencies(c, (n) => q(c, n)); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, q] of Object.entries(KINDS)) {
        const order = r % 2 === 0 ? ([["big", big], ["small", small]] as const) : ([["small", small], ["big", big]] as const);
        for (const [which, c] of order) {
          const times = await latencies(c, (n) => q(c, n + r * SEARCHES));
          byKind[name][which].push(...times);
          all[which].push(...times);
        }
      }
    }
    const p95 = (xs: number[]) => round(percentile(xs, 95), 2);
    const kinds = Object.fromEntries(Object.entries(byKind).map(([name, t]) => [name, { p95BigMs: p95(t.big), p95SmallMs: p95(t.small), ratio: round(p95(t.big) / p95(t.small)) }]));
    const ratio = round(p95(all.big) / p95(all.small));
    return { assets: big.size, smallCatalogAssets: small.size, seedSeconds: { big: big.seedSeconds, small: small.seedSeconds }, searchesPerKind: SEARCHES * ROUNDS, p95BigMs: p95(all.big), p95SmallMs: p95(all.small), ratio, kinds, target: "<= 2", met: ratio <= 2 };
  } finally {
    for (const c of [big, small]) {
      await stopChild(c.server);
      await c.target.drop();
    }
  }
}

/** The search index's upkeep taken out of a database: SQLite's FTS5 triggers, PostgreSQL's trigger that writes `search_entries`. */
async function withoutSearchIndex(target: Seeded, kind: DatabaseKind): Promise<void> {
  await withDatabase(target.url, async (db) => {
    if (kind === "postgres") return void (await sql`drop trigger search_entries_write on resources`.execute(db.db));
    for (const t of ["insert", "update", "delete"]) await sql.raw(`drop trigger resources_search_${t}`).execute(db.db);
  });
}

async function writeCost(kind: DatabaseKind) {
  const indexed = await createSeeded(kind);
  const bare = await createSeeded(kind);
  await withoutSearchIndex(bare, kind);
  const servers = { indexed: await startChild(indexed.url), bare: await startChild(bare.url) };
  try {
    const rates = { indexed: [] as number[], bare: [] as number[] };
    let from = 0;
    const round1 = async (which: "indexed" | "bare", start: number) => {
      const key = which === "indexed" ? indexed.key : bare.key;
      rates[which].push(await perSecond(WRITES, (i) => putAsset(servers[which], key, start + i)));
    };
    await perSecond(WRITES / 4, (i) => putAsset(servers.indexed, indexed.key, 10_000_000 - 1 - i)); // warm-up
    await perSecond(WRITES / 4, (i) => putAsset(servers.bare, bare.key, 10_000_000 - 1 - i));
    for (let r = 0; r < WRITE_ROUNDS; r++) {
      for (const which of r % 2 === 0 ? (["indexed", "bare"] as const) : (["bare", "indexed"] as const)) await round1(which, from);
      from += WRITES;
    }
    const indexedRate = percentile(rates.indexed, 50);
    const bareRate = percentile(rates.bare, 50);
    const ratio = round(bareRate / indexedRate);
    return { writesPerRound: WRITES, clients: CLIENTS, createsPerSecondIndexed: indexedRate, createsPerSecondWithoutIndex: bareRate, ratio, rounds: rates, target: "<= 1.3", met: ratio <= 1.3 };
  } finally {
    await stopChild(servers.indexed);
    await stopChild(servers.bare);
    await indexed.drop();
    await bare.drop();
  }
}

async function each<T>(part: (kind: DatabaseKind) => Promise<T>): Promise<Partial<Record<DatabaseKind, T>>> {
  const results: Partial<Record<DatabaseKind, T>> = {};
  for (const kind of ON) results[kind] = await part(kind);
  return results;
}

export async function run(): Promise<Record<string, unknown>> {
  return {
    name: "search",
    scale: SMALL ? "small" : "full",
    client: CLIENT,
    latency: PARTS.includes("latency") ? await each(searchScale) : undefined,
    writeTime: PARTS.includes("writes") ? await each(writeCost) : undefined,
  };
}
