import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { FeedConsumer, MemoryPositionStore } from "../../src/consumer/index.js";
import { parseConnectorConfig } from "../../src/connectors/postgres/config.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { ROOT, runCli } from "../helpers/cli.js";
import { POSTGRES_URL } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { until } from "../consumer/helpers.js";
import { FakePostgres } from "./fake-postgres.js";

const suffix = randomBytes(3).toString("hex");
const shop = `hshop_${suffix}`;
const ledgerSchema = `hledger_${suffix}`;
const sales = `hsales${suffix}`;
const marketing = `hmkt${suffix}`;
const role = `steward_team_${marketing}`;
const password = `never-sent-${suffix}`;

const url = new URL(POSTGRES_URL);
const mainDb = url.pathname.slice(1);
const warehouse = {
  host: url.hostname,
  port: Number(url.port || 5432),
  database: mainDb,
  user: decodeURIComponent(url.username) || "postgres",
  ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
};

// The connector and the catalog are separate processes in real life; here the hostile parts
// are a data product a team wrote and two fake PostgreSQL servers on loopback.
describe("PostgreSQL connector against hostile documents and hosts", { timeout: 120_000 }, () => {
  let t: TestServer;
  let db: pg.Client;
  let capture: FakePostgres;
  let hang: FakePostgres;
  let dir: string;
  let rawConfig: Record<string, any>;
  let connector: PostgresAccessConnector;
  const store = new MemoryPositionStore();

  const runConnector = () =>
    new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store, types: [...HANDLED_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();
  const request = async (id: string, outputPortId: string) => {
    expect((await t.api("PUT", `/api/access/${id}`, { info: { purpose: "test" }, provider: { dataProductId: "orders", outputPortId }, consumer: { teamId: marketing } })).status).toBe(200);
    expect((await t.api("POST", `/api/access/${id}/approve`)).status).toBe(200);
  };
  const provisioning = async (id: string) => (await t.api("GET", `/api/access/${id}`)).body.provisioning;
  const canSelect = async () => (await db.query("SELECT has_table_privilege($1, $2, 'SELECT') AS ok", [role, `${shop}.orders`])).rows[0].ok as boolean;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    await db.query(`CREATE SCHEMA ${shop}`);
    await db.query(`CREATE TABLE ${shop}.orders (id int)`);
    capture = await FakePostgres.start("capture");
    hang = await FakePostgres.start("hang");
    dir = mkdtempSync(join(tmpdir(), "steward-pg-hostile-"));
    rawConfig = {
      servers: {
        warehouse: { connection: warehouse, grantable: [{ team: sales, schema: shop }] },
        stalled: { connection: { host: "127.0.0.1", port: hang.port, database: "shop", user: "grants", password }, grantable: [{ team: sales, schema: shop }] },
      },
      ledger: { server: "warehouse", schema: ledgerSchema },
      timeouts: { connectMs: 300, statementMs: 5_000, lockMs: 300 },
    };
    connector = new PostgresAccessConnector(parseConnectorConfig(rawConfig));

    t = await startTestServer("sqlite");
    for (const team of [sales, marketing]) await t.api("PUT", `/api/teams/${team}`, { name: team });
    const port = (id: string, server: Record<string, unknown>) => ({ id, type: "postgres", server: { schema: shop, table: "orders", ...server } });
    expect(
      (
        await t.api("PUT", "/api/dataproducts/orders", {
          info: { title: "Orders", owner: sales },
          outputPorts: [
            port("chosen-host", { host: "127.0.0.1", port: capture.port, database: "shop" }),
            port("chosen-port", { host: "warehouse", port: capture.port }),
            port("stalled", { host: "stalled" }),
            port("healthy", { host: "warehouse" }),
          ],
        })
      ).status,
    ).toBe(200);
  });

  afterAll(async () => {
    await t?.close();
    await capture?.close();
    await hang?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (db) {
      for (const schema of [shop, ledgerSchema]) await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      if ((await db.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role])).rowCount) {
        await db.query(`DROP OWNED BY ${pg.escapeIdentifier(role)}`);
        await db.query(`DROP ROLE ${pg.escapeIdentifier(role)}`);
      }
      await db.end();
    }
  });

  it("never connects to a host a document names, so no password can be captured and nothing can be probed", async () => {
    await request("chosen-host", "chosen-host");
    await runConnector();
    expect(capture.connections).toBe(0);
    expect(capture.text()).not.toContain(password);
    const record = await provisioning("chosen-host");
    expect(record.status).toBe("provisioning-failed");
    expect(record.diagnostics.message).toMatch(/server '127.0.0.1' is not in the connector's configuration/);
    expect(JSON.stringify(record)).not.toContain(String(capture.port));
  });

  it("connects where the configuration says even when the port names another port number", async () => {
    await request("chosen-port", "chosen-port");
    await runConnector();
    expect(capture.connections).toBe(0);
    expect((await provisioning("chosen-port")).status).toBe("provisioned");
    expect(await canSelect()).toBe(true);
  });

  it("times out on a server that never answers, reports it without probing detail, and handles the next event", async () => {
    await request("stalled", "stalled");
    await t.api("POST", "/api/access/chosen-port/cancel");
    await runConnector();
    expect(hang.connections).toBeGreaterThan(0);
    const record = await provisioning("stalled");
    expect(record.status).toBe("provisioning-failed");
    expect(record.diagnostics).toEqual({ message: "The connector could not connect to the configured server 'stalled'; the operator's log has the details." });
    // The event after the stalled one was still handled.
    expect((await provisioning("chosen-port")).status).toBe("deprovisioned");
    expect(await canSelect()).toBe(false);
  });

  it("gives up on a lock it cannot get within the lock timeout, and reports it", async () => {
    const holder = new pg.Client({ connectionString: POSTGRES_URL });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`LOCK TABLE ${ledgerSchema}.grants IN ACCESS EXCLUSIVE MODE`);
      await request("locked", "healthy");
      await runConnector();
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
    const record = await provisioning("locked");
    expect(record.status).toBe("provisioning-failed");
    expect(record.diagnostics).toMatchObject({ code: "55P03", message: expect.stringMatching(/lock timeout/) });
    expect(await canSelect()).toBe(false);
  });

  it("stops on SIGTERM while a connection hangs, without moving past the event", async () => {
    const configPath = join(dir, "connector.yaml");
    writeFileSync(configPath, stringify({ ...rawConfig, timeouts: { connectMs: 600_000, statementMs: 600_000, lockMs: 600_000 } }));
    const position = join(dir, "position");
    const before = (await store.load()) ?? "";
    writeFileSync(position, before);
    await request("sigterm", "stalled");
    const connectionsBefore = hang.connections;

    const { STEWARD_API_KEY: _ignored, ...env } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "connector", "postgres", "--url", t.url, "--config", configPath, "--position-file", position, "--once"], {
      cwd: ROOT,
      env: { ...env, STEWARD_API_KEY: t.key },
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      await until(() => hang.connections > connectionsBefore, 60_000, "a connection to the stalled server");
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    // The position stays before the event, so the next run handles it again.
    expect(readFileSync(position, "utf8").trim()).not.toBe((await t.api("GET", "/api/events")).body.at(-1).id);
    expect(output).not.toContain(password);
    expect(output).not.toContain(t.key);
  });

  it("refuses to start on an invalid configuration, naming the member and printing no secret", async () => {
    const configPath = join(dir, "bad.yaml");
    writeFileSync(configPath, stringify({ ...rawConfig, servers: { ...rawConfig.servers, stalled: { connection: { ...rawConfig.servers.stalled.connection, port: "x" } } } }));
    const res = await runCli(["connector", "postgres", "--url", t.url, "--config", configPath, "--once"], { STEWARD_API_KEY: t.key });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/servers\.stalled\.connection\.port: Expected integer/);
    expect(res.stdout + res.stderr).not.toContain(password);
    const missing = await runCli(["connector", "postgres", "--url", t.url, "--once"], { STEWARD_API_KEY: t.key });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--config <file> is required/);
  });
});
