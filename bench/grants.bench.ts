/**
 * Grants that stay true (docs/consumers.md, "Reconciliation" and "Long polling"), on PostgreSQL:
 * - a reconciliation pass over BENCH_GRANTS_ACCESSES (default 1,000) active accesses with nothing
 *   drifted, against one read of the catalogs it compares (a connection and the catalog SELECT):
 *   ratio ≤ 20, and the statements it sends to PostgreSQL: the ledger and the catalog, none per access;
 * - from an access's deactivation to a real login's refused query (42501), following the feed
 *   with long polling (p99 ≤ 2 s) and with the protocol's short polls (p99 ≤ 10 s + 1 s), over
 *   BENCH_GRANTS_SAMPLES (default 20) deactivations each.
 * BENCH_GRANTS_PARTS (default `reconcile,long,short`) names the parts to run: `long` alone measures
 * the long-polling deactivations only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { FeedConsumer, MemoryPositionStore, StewardClient } from "../src/consumer/index.js";
import { readCatalog } from "../src/connectors/postgres/catalog-read.js";
import { parseConnectorConfig } from "../src/connectors/postgres/config.js";
import { applyGrant } from "../src/connectors/postgres/grants.js";
import { Ledger } from "../src/connectors/postgres/ledger.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../src/connectors/postgres/connector.js";
import { roleFor } from "../src/connectors/postgres/trust.js";
import { loadConfig } from "../src/platform/config.js";
import { startServer } from "../src/server.js";
import { percentile, round, SMALL } from "./support.js";

const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const ACCESSES = Number(process.env.BENCH_GRANTS_ACCESSES ?? (SMALL ? 100 : 1000));
const SAMPLES = Number(process.env.BENCH_GRANTS_SAMPLES ?? (SMALL ? 2 : 20));
const PASSES = SMALL ? 3 : 7;
/** How many activations go through the connector's event handling; the rest are set up directly. */
const FEED_GRANTS = Math.max(1, Math.min(ACCESSES, Number(process.env.BENCH_GRANTS_FEED ?? 20)));
const PARTS = new Set((process.env.BENCH_GRANTS_PARTS ?? "reconcile,long,short").split(",").map((p) => p.trim()));
const q = pg.escapeIdentifier;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `work(0 … count-1)`, at most `width` at a time. */
async function inParallel(count: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, count) }, async () => {
    while (next < count) await work(next++);
  }));
}

export async function run(): Promise<Record<string, unknown>> {
  const url = new URL(POSTGRES_URL);
  const suffix = randomBytes(3).toString("hex");
  const database = `grants_bench_${suffix}`;
  const connection = (db: string, user = decodeURIComponent(url.username) || "postgres") => ({
    host: url.hostname,
    port: Number(url.port || 5432),
    database: db,
    user,
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  });
  const admin = new pg.Client(connection(url.pathname.slice(1)));
  await admin.connect();
  await admin.query(`CREATE DATABASE ${q(database)}`);
  const dir = mkdtempSync(join(tmpdir(), "steward-grants-bench-"));
  const server = await startServer(loadConfig({}, { databaseUrl: `sqlite://${join(dir, "bench.db")}`, port: 0, host: "127.0.0.1", bootstrap: false, logLevel: "silent", appUrl: "http://steward.bench" }), { logger: false });
  const logins: string[] = [];
  try {
    const db = new pg.Client(connection(database));
    await db.connect();
    await db.query("CREATE SCHEMA shop");
    await db.query("CREATE TABLE shop.people (id int)");
    await db.query("INSERT INTO shop.people VALUES (1)");
    await db.end();
    const { apiKey } = await server.services.organizations.create("bench");
    const api = new StewardClient({ baseUrl: server.url, apiKey });
    const owner = "owner";
    const config = parseConnectorConfig({
      servers: { warehouse: { connection: connection(database), grantable: [{ team: owner, schema: "shop" }] } },
      ledger: { server: "warehouse", schema: "ledger" },
    });
    const connector = new PostgresAccessConnector(config);
    await api.put(`/api/teams/${owner}`, { name: owner });
    await api.put("/api/dataproducts/people", { info: { title: "People", owner }, outputPorts: [{ id: "people", type: "postgres", server: { host: "warehouse", schema: "shop", table: "people" } }] });
    // The accesses, a few requests at a time (the server shares the two cores with this client).
    await inParallel(ACCESSES, 8, async (i) => {
      await api.put(`/api/teams/t${i}`, { name: `t${i}` });
      await api.put(`/api/access/a${i}`, { info: { purpose: "bench" }, provider: { dataProductId: "people", outputPortId: "people" }, consumer: { teamId: `t${i}` } });
      await api.post(`/api/access/a${i}/approve`, {});
    });
    // The first FEED_GRANTS activations go through the connector as events do; the rest are set up
    // directly with the same grant and ledger code on one connection, and the feed position moves
    // past their events. Through the feed each access costs three connections (ledger read, ledger
    // write, grant) and five requests to Steward, which on a loaded machine made the setup of 1,000
    // longer than the run was given; the reconciliation measured below is the real one either way.
    const store = new MemoryPositionStore();
    let fed = 0;
    const feedStart = performance.now();
    await new FeedConsumer({
      baseUrl: server.url,
      apiKey,
      store,
      types: [...HANDLED_KINDS],
      stopWhenCaughtUp: true,
      handler: async (event, context) => {
        const id = Number(String(event.data?.id ?? "").slice(1));
        if (context.kind !== "AccessActivatedEvent" || !(id < FEED_GRANTS)) return;
        await connector.handle(event, context);
        fed++;
      },
    }).run();
    const feedGrantMs = (performance.now() - feedStart) / Math.max(1, fed);
    const directStart = performance.now();
    const ledger = new Ledger("ledger");
    const direct = new pg.Client(connection(database));
    await direct.connect();
    try {
      const template = await ledger.find(direct, "a0");
      if (!template) throw new Error("the connector did not grant access a0");
      for (let i = FEED_GRANTS; i < ACCESSES; i++) {
        const target = { ...template, role: roleFor({ team: `t${i}` }) };
        await ledger.record(direct, `a${i}`, target);
        await applyGrant(direct, target);
      }
    } finally {
      await direct.end();
    }
    const directGrantMs = (performance.now() - directStart) / Math.max(1, ACCESSES - FEED_GRANTS);
    const signal = new AbortController().signal;

    // Reconciliation with nothing drifted, counting what reaches PostgreSQL.
    const measureReconciliation = async () => {
      let statements = 0;
      const query = pg.Client.prototype.query;
      const counting = function (this: pg.Client, ...args: unknown[]) {
        statements++;
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      const passes: number[] = [];
      const perPass: number[] = [];
      let drifted = 0;
      for (let i = 0; i < PASSES; i++) {
        statements = 0;
        pg.Client.prototype.query = counting;
        const start = performance.now();
        try {
          drifted += (await connector.reconcile(api, signal)).length;
        } finally {
          pg.Client.prototype.query = query;
        }
        passes.push(performance.now() - start);
        perPass.push(statements);
      }
      const roles = Array.from({ length: ACCESSES }, (_, i) => roleFor({ team: `t${i}` })).sort();
      const reads: number[] = [];
      for (let i = 0; i < PASSES; i++) {
        const start = performance.now();
        const client = new pg.Client(connection(database));
        await client.connect();
        await readCatalog(client, roles, [], "steward_masked");
        await client.end();
        reads.push(performance.now() - start);
      }
      const passMs = percentile(passes, 50);
      const readMs = percentile(reads, 50);
      return {
        accesses: ACCESSES,
        setup: { grantedThroughFeed: fed, feedGrantMsPerAccess: round(feedGrantMs, 1), directGrantMsPerAccess: round(directGrantMs, 1) },
        passes: PASSES,
        passMsMedian: round(passMs, 1),
        catalogReadMsMedian: round(readMs, 1),
        ratio: round(passMs / readMs, 1),
        mark: 20,
        statementsPerPass: Math.max(...perPass),
        statementsPerAccess: round(Math.max(...perPass) / ACCESSES, 4),
        drifted,
      };
    };
    const reconciliation = PARTS.has("reconcile") ? await measureReconciliation() : undefined;

    // Deactivation → refused query, following the feed.
    const latency = async (longPolling: boolean, first: number) => {
      for (let i = first; i < first + SAMPLES; i++) {
        const login = `bench_login_${suffix}_${i}`;
        await admin.query(`CREATE ROLE ${q(login)} LOGIN IN ROLE ${q(roleFor({ team: `t${i}` }))}`);
        logins.push(login);
      }
      const stop = new AbortController();
      const following = new FeedConsumer({ baseUrl: server.url, apiKey, store, types: [...HANDLED_KINDS], handler: connector.handle, longPolling, signal: stop.signal }).run();
      const times: number[] = [];
      try {
        for (let i = first; i < first + SAMPLES; i++) {
          const client = new pg.Client(connection(database, `bench_login_${suffix}_${i}`));
          await client.connect();
          await client.query("SELECT id FROM shop.people");
          // A deactivation at a random moment of the consumer's wait.
          await sleep(Math.random() * (longPolling ? 500 : 10_000));
          const start = performance.now();
          await api.post(`/api/access/a${i}/cancel`, {});
          for (;;) {
            try {
              await client.query("SELECT id FROM shop.people");
            } catch (error) {
              if ((error as { code?: string }).code === "42501") break;
              throw error;
            }
            await sleep(10);
          }
          times.push(performance.now() - start);
          await client.end();
        }
      } finally {
        stop.abort();
        await following.catch(() => {});
      }
      return { samples: SAMPLES, p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)), maxMs: round(Math.max(...times)) };
    };
    const longPoll = PARTS.has("long") ? { ...(await latency(true, 0)), markMs: 2000 } : undefined;
    const shortPoll = PARTS.has("short") ? { ...(await latency(false, SAMPLES)), markMs: 11_000 } : undefined;
    await connector.close();
    return { name: "grants", reconciliation, deactivation: { longPoll, shortPoll } };
  } finally {
    await server.close();
    await admin.query(`DROP DATABASE IF EXISTS ${q(database)} WITH (FORCE)`);
    for (const login of logins) await admin.query(`DROP ROLE IF EXISTS ${q(login)}`);
    const roles = Array.from({ length: ACCESSES }, (_, i) => q(roleFor({ team: `t${i}` })));
    for (let i = 0; i < roles.length; i += 200) await admin.query(`DROP ROLE IF EXISTS ${roles.slice(i, i + 200).join(", ")}`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}
