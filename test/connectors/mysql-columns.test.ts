import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore } from "../../src/consumer/index.js";
import { MYSQL_KINDS, MysqlAccessConnector } from "../../src/connectors/mysql/connector.js";
import { maskViewName } from "../../src/connectors/postgres/grants.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { mq, MYSQL_SOCKET, mysqlReadAs, mysqlServer, mysqlTestConfig } from "./support.js";
import { runCli } from "../helpers/cli.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";

/**
 * The MariaDB/MySQL connector on the machine's MariaDB: for each (roles × port) case a real login,
 * holding the team's role as its default role, reads each column and is answered, refused
 * (1142/1143), or shown the mask through the masking view; ending the access takes it all away.
 */

const suffix = randomBytes(3).toString("hex");
const db = `cols_${suffix}`;
const masks = `masks_${suffix}`;
const ledger = `ledger_${suffix}`;
const owner = `owner${suffix}`;

const config = mysqlTestConfig(db, owner, masks, ledger);

const COLUMNS = ["id", "name", "email", "salary", "ssn", "note"] as const;
const ROW = { id: 1, name: "Ada", email: "ada@example.org", salary: "5000", ssn: "123-45-6789", note: "hello" };
const MASKED: Record<string, unknown> = { email: "****", salary: null, ssn: "****" };

const contract = {
  apiVersion: "v3.1.0",
  kind: "DataContract",
  id: "people",
  version: "1.0.0",
  status: "active",
  team: { name: owner },
  roles: [
    { role: "reader", customProperties: [{ property: "maxClassification", value: "public" }] },
    { role: "analyst", customProperties: [{ property: "maxClassification", value: "internal" }, { property: "maskClassification", value: "confidential" }] },
  ],
  schema: [
    {
      name: "people",
      properties: [
        { name: "id", logicalType: "integer", classification: "public" },
        { name: "name", logicalType: "string", classification: "internal" },
        { name: "email", logicalType: "string", classification: "confidential" },
        { name: "salary", logicalType: "number", classification: "confidential" },
        { name: "ssn", logicalType: "string", classification: "restricted" },
        { name: "note", logicalType: "string" },
      ],
    },
  ],
};

const PORTS = {
  plain: [],
  "internal-cap": [{ property: "maxClassification", value: "internal" }],
  "confidential-cap": [
    { property: "maxClassification", value: "confidential" },
    { property: "maskClassification", value: "restricted" },
  ],
} as const;

/** id, name, email, salary, ssn, note: g(ranted), m(asked), w(ithheld). */
const CASES: Array<[keyof typeof PORTS, string[], string]> = [
  ["plain", [], "gggggg"],
  ["plain", ["reader"], "gwwwwg"],
  ["plain", ["analyst"], "ggmmwg"],
  ["plain", ["nobody"], "wwwwww"],
  ["internal-cap", [], "ggwwwg"],
  ["internal-cap", ["reader"], "gwwwwg"],
  ["internal-cap", ["analyst"], "ggwwwg"],
  ["internal-cap", ["nobody"], "wwwwww"],
  ["confidential-cap", [], "ggggmg"],
  ["confidential-cap", ["reader"], "gwwwwg"],
  ["confidential-cap", ["analyst"], "ggmmwg"],
  ["confidential-cap", ["nobody"], "wwwwww"],
];

const team = (i: number) => `m${i}${suffix}`;
const login = (i: number) => `login_${i}_${suffix}`;
const q = mq;

describe("MariaDB connector: database, table and column grants from the privileges plan", () => {
  let t: TestServer;
  let root: mysql.Connection;
  const connector = new MysqlAccessConnector(config);
  const store = new MemoryPositionStore();
  const runConnector = () => new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store, types: [...MYSQL_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();

  const readAs = (i: number, sql: string): Promise<unknown> => mysqlReadAs(login(i), sql);

  beforeAll(async () => {
    root = await mysql.createConnection({ socketPath: MYSQL_SOCKET, user: "root" });
    await root.query(`CREATE DATABASE ${q(db)}`);
    await root.query(`CREATE TABLE ${q(db)}.people (id INT, name TEXT, email VARCHAR(100), salary DECIMAL(10,0), ssn TEXT, note TEXT)`);
    await root.query(`INSERT INTO ${q(db)}.people VALUES (?, ?, ?, ?, ?, ?)`, Object.values(ROW));
    for (let i = 0; i < CASES.length; i++) {
      const role = roleFor({ team: team(i) });
      await root.query(`CREATE ROLE ${q(role)}`);
      await root.query(`CREATE USER ${q(login(i))}@'localhost'`);
      await root.query(`GRANT ${q(role)} TO ${q(login(i))}@'localhost'`);
      await root.query(`SET DEFAULT ROLE ${q(role)} FOR ${q(login(i))}@'localhost'`);
    }
    t = await startTestServer("sqlite");
    expect((await t.api("PUT", `/api/teams/${owner}`, { name: owner })).status).toBe(200);
    expect((await t.api("PUT", "/api/datacontracts/people", contract)).status).toBe(200);
    const outputPorts = Object.entries(PORTS).map(([id, customProperties]) => ({ id, type: "mysql", dataContractId: "people", server: { host: "mariadb", schema: db, table: "people" }, customProperties }));
    expect((await t.api("PUT", "/api/dataproducts/people", { info: { title: "People", owner }, outputPorts })).status).toBe(200);
    for (const [i, [port, roles]] of CASES.entries()) {
      expect((await t.api("PUT", `/api/teams/${team(i)}`, { name: team(i) })).status).toBe(200);
      const body = { info: { purpose: "columns" }, provider: { dataProductId: "people", outputPortId: port }, consumer: { teamId: team(i) }, roles };
      expect((await t.api("PUT", `/api/access/case-${i}`, body)).status).toBe(200);
      expect((await t.api("POST", `/api/access/case-${i}/approve`)).status).toBe(200);
    }
    await runConnector();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    if (root) {
      for (const name of [db, masks, ledger]) await root.query(`DROP DATABASE IF EXISTS ${q(name)}`);
      for (let i = 0; i < CASES.length; i++) {
        await root.query(`DROP USER IF EXISTS ${q(login(i))}@'localhost'`);
        await root.query(`DROP ROLE IF EXISTS ${q(roleFor({ team: team(i) }))}`);
      }
      await root.end();
    }
  });

  it.each(CASES.map(([port, roles, expected], i) => [i, port, roles.join("+") || "no roles", expected] as const))("case %i: port %s, %s → %s", async (i, _port, _roles, expected) => {
    const view = `${q(masks)}.${q(maskViewName(roleFor({ team: team(i) }), db, "people"))}`;
    for (const [k, column] of COLUMNS.entries()) {
      const fromTable = await readAs(i, `SELECT CAST(${column} AS CHAR) AS v FROM ${q(db)}.people`);
      const decision = expected[k];
      if (decision === "g") expect(fromTable, column).toBe(String(ROW[column]));
      else expect([1142, 1143], column).toContain((fromTable as { refused: number }).refused);
      if (decision === "m") expect(await readAs(i, `SELECT ${column} AS v FROM ${view}`), column).toBe(MASKED[column]);
    }
    const provisioning = (await t.api("GET", `/api/access/case-${i}`)).body.provisioning;
    expect(provisioning).toMatchObject({ status: expected === "wwwwww" ? "provisioning-failed" : "provisioned", platform: "mysql" });
  });

  it("revokes table, column and mask privileges when an access ends, keeping nothing behind", async () => {
    const i = CASES.findIndex(([port, roles]) => port === "plain" && roles.join() === "analyst");
    expect((await t.api("POST", `/api/access/case-${i}/cancel`, {})).status).toBe(200);
    await runConnector();
    const view = `${q(masks)}.${q(maskViewName(roleFor({ team: team(i) }), db, "people"))}`;
    expect(await readAs(i, `SELECT id AS v FROM ${q(db)}.people`)).toEqual({ refused: 1142 });
    expect(await readAs(i, `SELECT email AS v FROM ${view}`)).toMatchObject({ refused: expect.any(Number) });
    const [grants] = await root.query(`SHOW GRANTS FOR ${q(roleFor({ team: team(i) }))}`);
    expect((grants as Array<Record<string, string>>).map((g) => Object.values(g)[0])).toEqual([`GRANT USAGE ON *.* TO \`${roleFor({ team: team(i) })}\``]);
    expect((await t.api("GET", `/api/access/case-${i}`)).body.provisioning.status).toBe("deprovisioned");
  });

  it("refuses a database outside the owner team's mapping, and grants nothing", async () => {
    const outputPorts = [{ id: "other", type: "mysql", server: { host: "mariadb", schema: "mysql", table: "user" } }];
    expect((await t.api("PUT", "/api/dataproducts/sneaky", { info: { title: "Sneaky", owner }, outputPorts })).status).toBe(200);
    const body = { info: { purpose: "x" }, provider: { dataProductId: "sneaky", outputPortId: "other" }, consumer: { teamId: team(0) } };
    expect((await t.api("PUT", "/api/access/sneaky", body)).status).toBe(200);
    expect((await t.api("POST", "/api/access/sneaky/approve")).status).toBe(200);
    await runConnector();
    const provisioning = (await t.api("GET", "/api/access/sneaky")).body.provisioning;
    expect(provisioning.status).toBe("provisioning-failed");
    expect(provisioning.diagnostics.message).toMatch(/may not grant table 'mysql.user'/);
    expect(await readAs(0, "SELECT User AS v FROM mysql.user LIMIT 1")).toMatchObject({ refused: 1142 });
  });

  it("runs as `steward connector mysql --once` with a YAML configuration, and revokes an ended access", async () => {
    const dir = mkdtempSync(join(tmpdir(), "steward-mysql-"));
    try {
      const raw = { servers: { mariadb: mysqlServer(db, owner, masks) }, ledger: { server: "mariadb", schema: ledger } };
      writeFileSync(join(dir, "connector.yaml"), stringify(raw));
      writeFileSync(join(dir, "position"), (await store.load()) ?? "");
      expect(await readAs(0, `SELECT name AS v FROM ${q(db)}.people`)).toBe("Ada");
      expect((await t.api("POST", "/api/access/case-0/cancel", {})).status).toBe(200);
      const res = await runCli(["connector", "mysql", "--url", t.url, "--config", join(dir, "connector.yaml"), "--position-file", join(dir, "position"), "--once"], { STEWARD_API_KEY: t.key });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('revoked {"accessId":"case-0","server":"mariadb"');
      expect(res.stdout + res.stderr).not.toContain(t.key);
      expect(await readAs(0, `SELECT name AS v FROM ${q(db)}.people`)).toEqual({ refused: 1142 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
