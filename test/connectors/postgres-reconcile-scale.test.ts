import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StewardClient } from "../../src/consumer/index.js";
import { parseConnectorConfig } from "../../src/connectors/postgres/config.js";
import { PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { POSTGRES_URL } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * Reconciliation at scale: 1,000 active accesses (20 teams × 50 tables), 20 privileges revoked
 * by hand: exactly those 20 are found, nothing else; and a pass with nothing drifted runs the
 * same few statements whatever the number of accesses.
 */

const TEAMS = 20;
const TABLES = 50;
const suffix = randomBytes(3).toString("hex");
const warehouseDb = `scale_${suffix}`;
const owner = `owner${suffix}`;
const team = (i: number) => `s${i}${suffix}`;
const url = new URL(POSTGRES_URL);
const connection = (database: string) => ({
  host: url.hostname,
  port: Number(url.port || 5432),
  database,
  user: decodeURIComponent(url.username) || "postgres",
  ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
});
const config = parseConnectorConfig({
  servers: { warehouse: { connection: connection(warehouseDb), grantable: [{ team: owner, schema: "shop" }] } },
  ledger: { server: "warehouse", schema: "ledger" },
  timeouts: { connectMs: 10_000, statementMs: 30_000, lockMs: 5_000 },
});

describe("PostgreSQL reconciliation of 1,000 active accesses", () => {
  let t: TestServer;
  let admin: pg.Client;
  let db: pg.Client;
  let api: StewardClient;
  const connector = new PostgresAccessConnector(config);
  const reconcile = () => connector.reconcile(api, new AbortController().signal);

  beforeAll(async () => {
    admin = new pg.Client(connection(url.pathname.slice(1)));
    await admin.connect();
    await admin.query(`CREATE DATABASE ${warehouseDb}`);
    db = new pg.Client(connection(warehouseDb));
    await db.connect();
    await db.query("CREATE SCHEMA shop");
    for (let k = 0; k < TABLES; k++) await db.query(`CREATE TABLE shop.t${k} (id int)`);
    t = await startTestServer("sqlite");
    api = new StewardClient({ baseUrl: t.url, apiKey: t.key });
    expect((await t.api("PUT", `/api/teams/${owner}`, { name: owner })).status).toBe(200);
    const outputPorts = Array.from({ length: TABLES }, (_, k) => ({ id: `p${k}`, type: "postgres", server: { host: "warehouse", schema: "shop", table: `t${k}` } }));
    expect((await t.api("PUT", "/api/dataproducts/shop", { info: { title: "Shop", owner }, outputPorts })).status).toBe(200);
    for (let i = 0; i < TEAMS; i++) {
      expect((await t.api("PUT", `/api/teams/${team(i)}`, { name: team(i) })).status).toBe(200);
      for (let k = 0; k < TABLES; k++) {
        const body = { info: { purpose: "scale" }, provider: { dataProductId: "shop", outputPortId: `p${k}` }, consumer: { teamId: team(i) } };
        expect((await t.api("PUT", `/api/access/a${i}-${k}`, body)).status).toBe(200);
        expect((await t.api("POST", `/api/access/a${i}-${k}/approve`)).status).toBe(200);
      }
    }
    // The first pass grants them all (no feed here): each is an active access without a grant.
    const first = await reconcile();
    expect(first.length).toBe(TEAMS * TABLES);
    expect(new Set(first.map((d) => d.kind))).toEqual(new Set(["missing-privilege"]));
  }, 600_000);

  afterAll(async () => {
    await t?.close();
    await db?.end();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${warehouseDb} WITH (FORCE)`);
      for (let i = 0; i < TEAMS; i++) await admin.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(roleFor({ team: team(i) }))}`);
      await admin.end();
    }
  });

  it("with nothing drifted, runs a constant handful of statements, not one per access", async () => {
    const query = pg.Client.prototype.query;
    let statements = 0;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      statements++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const started = performance.now();
      expect(await reconcile()).toEqual([]);
      const took = performance.now() - started;
      // One ledger read and one catalog read (plus the ledger's table check on first use).
      expect(statements).toBeLessThanOrEqual(5);
      console.log(`reconcile of ${TEAMS * TABLES} accesses, nothing drifted: ${took.toFixed(0)} ms, ${statements} statements`);
    } finally {
      pg.Client.prototype.query = query;
    }
  });

  it("finds exactly the 20 privileges revoked by hand, and repairs them", { timeout: 120_000 }, async () => {
    const revoked = Array.from({ length: 20 }, (_, n) => [n % TEAMS, (n * 7) % TABLES] as const);
    for (const [i, k] of revoked) await db.query(`REVOKE SELECT ON shop.t${k} FROM ${pg.escapeIdentifier(roleFor({ team: team(i) }))}`);
    const found = await reconcile();
    expect(found.map((d) => d.kind)).toEqual(Array(20).fill("missing-privilege"));
    expect(found.flatMap((d) => d.accessIds).sort()).toEqual(revoked.map(([i, k]) => `a${i}-${k}`).sort());
    expect(await reconcile()).toEqual([]);
  });
});
