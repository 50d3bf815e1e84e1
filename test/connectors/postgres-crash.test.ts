import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StewardClient } from "../../src/consumer/index.js";
import { parseConnectorConfig } from "../../src/connectors/postgres/config.js";
import { PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { POSTGRES_URL } from "../helpers/databases.js";
import { runCli } from "../helpers/cli.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { killWhileWaiting } from "./support.js";

/**
 * `kill -9` of the connector while a grant, and while a reconciliation's repair, waits inside
 * PostgreSQL; after a restart, the ledger and the real privileges agree and nothing is left over.
 * The wait is made real: the test holds an uncommitted CREATE ROLE of the role the connector is
 * about to create, so the connector's own CREATE ROLE blocks until the test lets go.
 */

const suffix = randomBytes(3).toString("hex");
const warehouseDb = `crash_${suffix}`;
const owner = `owner${suffix}`;
const consumerTeam = `tk${suffix}`;
const role = roleFor({ team: consumerTeam });
const url = new URL(POSTGRES_URL);
const connection = (database: string) => ({
  host: url.hostname,
  port: Number(url.port || 5432),
  database,
  user: decodeURIComponent(url.username) || "postgres",
  ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
});
const rawConfig = {
  servers: { warehouse: { connection: connection(warehouseDb), grantable: [{ team: owner, schema: "shop" }] } },
  ledger: { server: "warehouse", schema: "ledger" },
  timeouts: { connectMs: 10_000, statementMs: 60_000, lockMs: 60_000 },
};
const q = pg.escapeIdentifier;

describe("PostgreSQL connector killed mid-grant and mid-reconcile", () => {
  let t: TestServer;
  let admin: pg.Client;
  let db: pg.Client;
  let dir: string;

  const args = (...more: string[]) => ["connector", "postgres", "--url", t.url, "--config", join(dir, "connector.yaml"), "--position-file", join(dir, "position"), ...more];
  const agree = async () => {
    const connector = new PostgresAccessConnector(parseConnectorConfig(rawConfig));
    return (await connector.reconcile(new StewardClient({ baseUrl: t.url, apiKey: t.key }), new AbortController().signal, { reportOnly: true })).map((d) => d.kind);
  };
  const ledger = async () => (await db.query<{ access_id: string }>("SELECT access_id FROM ledger.grants ORDER BY access_id")).rows.map((r) => r.access_id);
  const canRead = async () => (await db.query("SELECT pg_has_role('postgres', 'USAGE') AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AND has_table_privilege($1, 'shop.people', 'SELECT') AS ok", [role])).rows[0].ok as boolean;

  /** Starts the connector, waits until it is blocked on the test's lock, and kills it with SIGKILL. */
  const killWhileBlocked = async (blocker: pg.Client) => {
    const waiting = async () =>
      ((await admin.query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'steward-connector' AND datname = $1 AND wait_event_type = 'Lock'", [warehouseDb])).rowCount ?? 0) > 0;
    await killWhileWaiting(args("--reconcile-interval", "3600"), { STEWARD_API_KEY: t.key }, waiting);
    await blocker.query("ROLLBACK");
    await blocker.end();
  };
  const holdRole = async () => {
    const blocker = new pg.Client(connection(warehouseDb));
    await blocker.connect();
    await blocker.query("BEGIN");
    await blocker.query(`CREATE ROLE ${q(role)} NOLOGIN`);
    return blocker;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "steward-crash-"));
    writeFileSync(join(dir, "connector.yaml"), stringify(rawConfig));
    admin = new pg.Client(connection(url.pathname.slice(1)));
    await admin.connect();
    await admin.query(`CREATE DATABASE ${warehouseDb}`);
    db = new pg.Client(connection(warehouseDb));
    await db.connect();
    await db.query("CREATE SCHEMA shop");
    await db.query("CREATE TABLE shop.people (id int)");
    t = await startTestServer("sqlite");
    for (const team of [owner, consumerTeam]) expect((await t.api("PUT", `/api/teams/${team}`, { name: team })).status).toBe(200);
    const outputPorts = [{ id: "people", type: "postgres", server: { host: "warehouse", schema: "shop", table: "people" } }];
    expect((await t.api("PUT", "/api/dataproducts/people", { info: { title: "People", owner }, outputPorts })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await db?.end();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${warehouseDb} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${q(role)}`);
      await admin.end();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("killed while granting: the restart finds the recorded grant missing and makes it, once", { timeout: 120_000 }, async () => {
    const body = { info: { purpose: "crash" }, provider: { dataProductId: "people", outputPortId: "people" }, consumer: { teamId: consumerTeam } };
    expect((await t.api("PUT", "/api/access/a1", body)).status).toBe(200);
    expect((await t.api("POST", "/api/access/a1/approve")).status).toBe(200);
    await killWhileBlocked(await holdRole());
    // Recorded before granting; the grant itself never happened.
    expect(await ledger()).toEqual(["a1"]);
    expect(await canRead()).toBe(false);
    const restarted = await runCli(args("--once"), { STEWARD_API_KEY: t.key });
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(await canRead()).toBe(true);
    expect(await ledger()).toEqual(["a1"]);
    expect(await agree()).toEqual([]);
  });

  it("killed while reconciliation repairs a dropped role: the restart repairs it, and nothing is left over", { timeout: 120_000 }, async () => {
    await db.query(`DROP OWNED BY ${q(role)}`);
    await db.query(`DROP ROLE ${q(role)}`);
    await killWhileBlocked(await holdRole());
    expect(await canRead()).toBe(false);
    const restarted = await runCli(args("--once"), { STEWARD_API_KEY: t.key });
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(await canRead()).toBe(true);
    expect(await agree()).toEqual([]);
    // Ended while the connector is down: the next start revokes it and forgets it.
    expect((await t.api("POST", "/api/access/a1/cancel", {})).status).toBe(200);
    const again = await runCli(args("--once", "--reconcile-interval", "1"), { STEWARD_API_KEY: t.key });
    expect(again.code, again.stderr).toBe(0);
    expect(await ledger()).toEqual([]);
    expect((await db.query("SELECT has_table_privilege($1, 'shop.people', 'SELECT') AS ok", [role])).rows[0].ok).toBe(false);
    expect(await agree()).toEqual([]);
  });
});
