import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore, StewardClient } from "../../src/consumer/index.js";
import { parseMysqlConfig } from "../../src/connectors/mysql/config.js";
import { MYSQL_KINDS, MysqlAccessConnector } from "../../src/connectors/mysql/connector.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { ConfigError } from "../../src/platform/config.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { mq as q, MYSQL_SOCKET, mysqlReadAs, mysqlServer, mysqlTestConfig } from "./support.js";

/**
 * Memberships of the connector's roles on the machine's MariaDB (docs/consumers.md): the
 * configuration lists which account holds which role, the connector grants it as the account's
 * default role, and a membership removed or added by hand is found, reported and repaired, as a
 * real login's query shows.
 */

const suffix = randomBytes(3).toString("hex");
const db = `mem_${suffix}`;
const masks = `mmasks_${suffix}`;
const ledger = `mledger_${suffix}`;
const owner = `owner${suffix}`;
const team = `tm${suffix}`;
const role = roleFor({ team });
const other = `other_${suffix}`;
const alice = `malice_${suffix}`;
const bob = `mbob_${suffix}`;
const config = mysqlTestConfig(db, owner, masks, ledger, { members: [{ team, login: alice, host: "localhost" }] });
const people = `SELECT id AS v FROM ${q(db)}.people`;
const secrets = `SELECT v FROM ${q(db)}.secrets`;

describe("MariaDB role memberships", () => {
  let t: TestServer;
  let root: mysql.Connection;
  let api: StewardClient;
  const connector = new MysqlAccessConnector(config);
  const store = new MemoryPositionStore();
  const reconcile = async (reportOnly = false) => (await connector.reconcile(api, new AbortController().signal, { reportOnly })).map((d) => d.kind);
  const provisioning = async () => (await t.api("GET", "/api/access/a1")).body.provisioning;
  const defaultRole = async (login: string) => ((await root.query("SELECT default_role AS r FROM mysql.user WHERE User = ? AND Host = 'localhost'", [login]))[0] as Array<{ r: string }>)[0]?.r;

  beforeAll(async () => {
    root = await mysql.createConnection({ socketPath: MYSQL_SOCKET, user: "root" });
    await root.query(`CREATE DATABASE ${q(db)}`);
    await root.query(`CREATE TABLE ${q(db)}.people (id INT)`);
    await root.query(`INSERT INTO ${q(db)}.people VALUES (1)`);
    await root.query(`CREATE TABLE ${q(db)}.secrets (v TEXT)`);
    await root.query(`INSERT INTO ${q(db)}.secrets VALUES ('hidden')`);
    for (const login of [alice, bob]) await root.query(`CREATE USER ${q(login)}@'localhost'`);
    t = await startTestServer("sqlite");
    api = new StewardClient({ baseUrl: t.url, apiKey: t.key });
    for (const id of [owner, team]) expect((await t.api("PUT", `/api/teams/${id}`, { name: id })).status).toBe(200);
    const outputPorts = [{ id: "people", type: "mariadb", server: { host: "mariadb", schema: db, table: "people" } }];
    expect((await t.api("PUT", "/api/dataproducts/people", { info: { title: "People", owner }, outputPorts })).status).toBe(200);
    const body = { info: { purpose: "members" }, provider: { dataProductId: "people", outputPortId: "people" }, consumer: { teamId: team } };
    expect((await t.api("PUT", "/api/access/a1", body)).status).toBe(200);
    expect((await t.api("POST", "/api/access/a1/approve")).status).toBe(200);
    await new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store, types: [...MYSQL_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    if (root) {
      for (const name of [db, masks, ledger]) await root.query(`DROP DATABASE IF EXISTS ${q(name)}`);
      for (const login of [alice, bob]) await root.query(`DROP USER IF EXISTS ${q(login)}@'localhost'`);
      for (const name of [role, other]) await root.query(`DROP ROLE IF EXISTS ${q(name)}`);
      await root.end();
    }
  });

  it("refuses an account listed twice: MariaDB gives an account one default role", () => {
    const members = [
      { team, login: alice, host: "localhost" },
      { user: "u1", login: alice, host: "localhost" },
    ];
    const raw = { servers: { mariadb: mysqlServer(db, owner, masks, { members }) }, ledger: { server: "mariadb" } };
    expect(() => parseMysqlConfig(raw)).toThrow(ConfigError);
    expect(() => parseMysqlConfig(raw)).toThrow(/listed twice/);
  });

  it("makes the configured account a member, as its default role, and finds nothing more", async () => {
    expect(await defaultRole(alice)).toBe(role);
    expect(await mysqlReadAs(alice, people)).toBe(1);
    expect(await mysqlReadAs(bob, people)).toEqual({ refused: 1142 });
    expect(await reconcile()).toEqual([]);
  });

  it("a membership revoked by hand is reported only with reportOnly, then given back", async () => {
    await root.query(`REVOKE ${q(role)} FROM ${q(alice)}@'localhost'`);
    expect(await mysqlReadAs(alice, people)).toEqual({ refused: 1142 });
    expect(await reconcile(true)).toEqual(["removed-membership"]);
    expect(await mysqlReadAs(alice, people)).toEqual({ refused: 1142 });
    expect(await provisioning()).toMatchObject({ status: "provisioning-failed", diagnostics: { drift: [{ kind: "removed-membership" }] } });
    expect(await reconcile()).toEqual(["removed-membership"]);
    expect(await mysqlReadAs(alice, people)).toBe(1);
    const record = await provisioning();
    expect(record.status).toBe("provisioned");
    expect(record.diagnostics.drift).toEqual([{ kind: "removed-membership", what: `login ${alice}@localhost is no longer a member of role ${role}` }]);
    expect(await reconcile()).toEqual([]);
  });

  it("a default role taken away by hand counts as a removed membership, and is set again", async () => {
    await root.query(`SET DEFAULT ROLE NONE FOR ${q(alice)}@'localhost'`);
    expect(await mysqlReadAs(alice, people)).toEqual({ refused: 1142 });
    expect(await reconcile()).toEqual(["removed-membership"]);
    expect(await defaultRole(alice)).toBe(role);
    expect(await mysqlReadAs(alice, people)).toBe(1);
    expect(await reconcile()).toEqual([]);
  });

  it("an account the configuration does not list, made a member by hand, is reported only with reportOnly, then taken out", async () => {
    await root.query(`GRANT ${q(role)} TO ${q(bob)}@'localhost'`);
    await root.query(`SET DEFAULT ROLE ${q(role)} FOR ${q(bob)}@'localhost'`);
    expect(await mysqlReadAs(bob, people)).toBe(1);
    expect(await reconcile(true)).toEqual(["extra-membership"]);
    expect(await mysqlReadAs(bob, people)).toBe(1);
    expect(await reconcile()).toEqual(["extra-membership"]);
    expect(await mysqlReadAs(bob, people)).toEqual({ refused: 1142 });
    expect(await defaultRole(bob)).toBe("");
    expect(await mysqlReadAs(alice, people)).toBe(1);
    expect(await reconcile()).toEqual([]);
  });

  it("a role of the scheme made a member of another role by hand loses that membership", async () => {
    await root.query(`CREATE ROLE ${q(other)}`);
    await root.query(`GRANT SELECT ON ${q(db)}.secrets TO ${q(other)}`);
    await root.query(`GRANT ${q(other)} TO ${q(role)}`);
    expect(await mysqlReadAs(alice, secrets)).toBe("hidden");
    expect(await reconcile()).toEqual(["extra-membership"]);
    expect(await mysqlReadAs(alice, secrets)).toEqual({ refused: 1142 });
    expect(await mysqlReadAs(alice, people)).toBe(1);
    expect(await reconcile()).toEqual([]);
  });

  it("a dropped role comes back with its configured member", async () => {
    await root.query(`DROP ROLE ${q(role)}`);
    expect(await mysqlReadAs(alice, people)).toEqual({ refused: 1142 });
    expect(await reconcile()).toEqual(["dropped-role"]);
    expect(await mysqlReadAs(alice, people)).toBe(1);
    expect(await reconcile()).toEqual([]);
  });
});
