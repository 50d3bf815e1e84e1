import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mysql from "mysql2/promise";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StewardClient } from "../../src/consumer/index.js";
import { parseMysqlConfig } from "../../src/connectors/mysql/config.js";
import { MysqlAccessConnector } from "../../src/connectors/mysql/connector.js";
import { maskViewName } from "../../src/connectors/postgres/grants.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { runCli } from "../helpers/cli.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { killWhileWaiting, mq, MYSQL_SOCKET, mysqlReadAs, mysqlServer } from "./support.js";

/**
 * `kill -9` of the MariaDB connector while a grant, and while a reconciliation's repair, waits
 * inside the server; after a restart the ledger and the real privileges agree, each privilege is
 * held once, and nothing is left over once the access ends. As for PostgreSQL the wait is made
 * real: the test holds `LOCK TABLES … WRITE` on the table, so the connector's CREATE VIEW of the
 * masking view waits for the table's metadata lock until the test lets go.
 */

const suffix = randomBytes(3).toString("hex");
const db = `crash_${suffix}`;
const masks = `cmasks_${suffix}`;
const ledgerDb = `cledger_${suffix}`;
const owner = `owner${suffix}`;
const consumerTeam = `tk${suffix}`;
const role = roleFor({ team: consumerTeam });
const login = `clogin_${suffix}`;
const rawConfig = {
  servers: { mariadb: mysqlServer(db, owner, masks) },
  ledger: { server: "mariadb", schema: ledgerDb },
  timeouts: { connectMs: 10_000, statementMs: 60_000, lockMs: 60_000 },
};
const q = mq;
const view = `${q(masks)}.${q(maskViewName(role, db, "people"))}`;

describe("MariaDB connector killed mid-grant and mid-reconcile", () => {
  let t: TestServer;
  let root: mysql.Connection;
  let dir: string;

  const args = (...more: string[]) => ["connector", "mysql", "--url", t.url, "--config", join(dir, "connector.yaml"), "--position-file", join(dir, "position"), ...more];
  const rows = async (sql: string, values: unknown[] = []) => (await root.query(sql, values))[0] as Array<Record<string, unknown>>;
  const agree = async () => {
    const connector = new MysqlAccessConnector(parseMysqlConfig(rawConfig));
    return (await connector.reconcile(new StewardClient({ baseUrl: t.url, apiKey: t.key }), new AbortController().signal, { reportOnly: true })).map((d) => d.kind);
  };
  const ledger = async () => (await rows(`SELECT access_id FROM ${q(ledgerDb)}.grants ORDER BY access_id`)).map((r) => r.access_id);
  const grants = async () => (await rows(`SHOW GRANTS FOR ${q(role)}`)).map((r) => String(Object.values(r)[0])).sort();
  const readAs = (sql: string): Promise<unknown> => mysqlReadAs(login, sql);

  /** Holds the table's write lock, starts the connector, waits until its CREATE VIEW waits for that lock, kills it, and lets go. */
  const killWhileBlocked = async () => {
    const locker = await mysql.createConnection({ socketPath: MYSQL_SOCKET, user: "root" });
    await locker.query(`LOCK TABLES ${q(db)}.people WRITE`);
    const waiting = async () =>
      (await rows("SELECT 1 FROM information_schema.PROCESSLIST WHERE STATE = 'Waiting for table metadata lock' AND INFO LIKE CONCAT('%CREATE OR REPLACE%', ?, '%')", [db])).length > 0;
    try {
      await killWhileWaiting(args("--reconcile-interval", "3600"), { STEWARD_API_KEY: t.key }, waiting);
    } finally {
      await locker.query("UNLOCK TABLES");
      await locker.end();
    }
    // The server still runs the statement the dead client sent (DDL commits by itself), then ends
    // that session: what a real crash leaves. The test goes on once it has.
    while ((await rows("SELECT 1 FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND INFO LIKE CONCAT('%CREATE OR REPLACE%', ?, '%')", [db])).length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "steward-mysql-crash-"));
    writeFileSync(join(dir, "connector.yaml"), stringify(rawConfig));
    root = await mysql.createConnection({ socketPath: MYSQL_SOCKET, user: "root" });
    await root.query(`CREATE DATABASE ${q(db)}`);
    await root.query(`CREATE TABLE ${q(db)}.people (id INT, name TEXT, email TEXT)`);
    await root.query(`INSERT INTO ${q(db)}.people VALUES (1, 'Ada', 'ada@example.org')`);
    await root.query(`CREATE USER ${q(login)}@'localhost'`);
    await root.query(`CREATE ROLE ${q(role)}`);
    await root.query(`GRANT ${q(role)} TO ${q(login)}@'localhost'`);
    await root.query(`SET DEFAULT ROLE ${q(role)} FOR ${q(login)}@'localhost'`);
    t = await startTestServer("sqlite");
    for (const team of [owner, consumerTeam]) expect((await t.api("PUT", `/api/teams/${team}`, { name: team })).status).toBe(200);
    const contract = {
      apiVersion: "v3.1.0",
      kind: "DataContract",
      id: "people",
      version: "1.0.0",
      status: "active",
      team: { name: owner },
      roles: [{ role: "analyst", customProperties: [{ property: "maxClassification", value: "internal" }, { property: "maskClassification", value: "confidential" }] }],
      schema: [{ name: "people", properties: ["public", "internal", "confidential"].map((classification, i) => ({ name: ["id", "name", "email"][i], classification })) }],
    };
    expect((await t.api("PUT", "/api/datacontracts/people", contract)).status).toBe(200);
    const outputPorts = [{ id: "people", type: "mariadb", dataContractId: "people", server: { host: "mariadb", schema: db, table: "people" } }];
    expect((await t.api("PUT", "/api/dataproducts/people", { info: { title: "People", owner }, outputPorts })).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    if (root) {
      for (const name of [db, masks, ledgerDb]) await root.query(`DROP DATABASE IF EXISTS ${q(name)}`);
      await root.query(`DROP USER IF EXISTS ${q(login)}@'localhost'`);
      await root.query(`DROP ROLE IF EXISTS ${q(role)}`);
      await root.end();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("killed while granting: the restart finds the recorded grant missing and makes it, once", { timeout: 120_000 }, async () => {
    const body = { info: { purpose: "crash" }, provider: { dataProductId: "people", outputPortId: "people" }, consumer: { teamId: consumerTeam }, roles: ["analyst"] };
    expect((await t.api("PUT", "/api/access/a1", body)).status).toBe(200);
    expect((await t.api("POST", "/api/access/a1/approve")).status).toBe(200);
    await killWhileBlocked();
    // Recorded before granting; the grant itself never happened.
    expect(await ledger()).toEqual(["a1"]);
    expect(await readAs(`SELECT name AS v FROM ${q(db)}.people`)).toHaveProperty("refused");
    const restarted = await runCli(args("--once"), { STEWARD_API_KEY: t.key });
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(await readAs(`SELECT name AS v FROM ${q(db)}.people`)).toBe("Ada");
    expect(await readAs(`SELECT email AS v FROM ${view}`)).toBe("****");
    expect(await readAs(`SELECT email AS v FROM ${q(db)}.people`)).toEqual({ refused: 1143 });
    expect(await ledger()).toEqual(["a1"]);
    // Each privilege once: the column grant, the masking view's, and nothing else.
    expect(await grants()).toHaveLength(3);
    expect(await grants()).toContain(`GRANT SELECT ON ${view} TO \`${role}\``);
    expect((await rows("SELECT Column_name AS c FROM mysql.columns_priv WHERE User = ? ORDER BY Column_name", [role])).map((r) => r.c)).toEqual(["id", "name"]);
    expect(await agree()).toEqual([]);
  });

  it("killed while reconciliation remakes a masking view changed by hand: the restart remakes it, and nothing is left once the access ends", { timeout: 180_000 }, async () => {
    await root.query(`CREATE OR REPLACE SQL SECURITY DEFINER VIEW ${view} AS SELECT id, name, email FROM ${q(db)}.people`);
    expect(await readAs(`SELECT email AS v FROM ${view}`)).toBe("ada@example.org");
    await killWhileBlocked();
    // The view is as the hand left it, or remade by the statement the dead connector had sent.
    expect(["ada@example.org", "****"]).toContain(await readAs(`SELECT email AS v FROM ${view}`));
    const restarted = await runCli(args("--once"), { STEWARD_API_KEY: t.key });
    expect(restarted.code, restarted.stderr).toBe(0);
    expect(await readAs(`SELECT email AS v FROM ${view}`)).toBe("****");
    expect(await agree()).toEqual([]);
    // Ended while the connector is down: the next start revokes it and forgets it.
    expect((await t.api("POST", "/api/access/a1/cancel", {})).status).toBe(200);
    const again = await runCli(args("--once"), { STEWARD_API_KEY: t.key });
    expect(again.code, again.stderr).toBe(0);
    expect(await ledger()).toEqual([]);
    expect(await readAs(`SELECT id AS v FROM ${q(db)}.people`)).toEqual({ refused: 1142 });
    expect(await grants()).toEqual([`GRANT USAGE ON *.* TO \`${role}\``]);
    expect(await rows("SELECT 1 FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?", [masks])).toEqual([]);
    expect(await agree()).toEqual([]);
  });
});
