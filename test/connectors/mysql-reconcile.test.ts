import { randomBytes } from "node:crypto";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore, StewardClient } from "../../src/consumer/index.js";
import { MYSQL_KINDS, MysqlAccessConnector } from "../../src/connectors/mysql/connector.js";
import { maskViewName } from "../../src/connectors/postgres/grants.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { mq, MYSQL_SOCKET, mysqlReadAs, mysqlTestConfig } from "./support.js";

/** Reconciliation on the machine's MariaDB: drift made by hand in SQL, found, repaired and reported, seen by a real login. */

const suffix = randomBytes(3).toString("hex");
const db = `recon_${suffix}`;
const masks = `rmasks_${suffix}`;
const ledger = `rledger_${suffix}`;
const owner = `owner${suffix}`;
const config = mysqlTestConfig(db, owner, masks, ledger);
const TEAMS = { analyst: `ra${suffix}`, whole: `rw${suffix}` } as const;
type Who = keyof typeof TEAMS;
const role = (who: Who) => roleFor({ team: TEAMS[who] });
const login = (who: Who) => `rlogin_${who}_${suffix}`;
const q = mq;

describe("MariaDB reconciliation", () => {
  let t: TestServer;
  let root: mysql.Connection;
  let api: StewardClient;
  const connector = new MysqlAccessConnector(config);
  const store = new MemoryPositionStore();
  const runFeed = () => new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store, types: [...MYSQL_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();
  const reconcile = async (reportOnly = false) => (await connector.reconcile(api, new AbortController().signal, { reportOnly })).map((d) => d.kind);
  const readAs = (who: Who, sql: string): Promise<unknown> => mysqlReadAs(login(who), sql);
  const makeRole = async (who: Who) => {
    await root.query(`CREATE ROLE IF NOT EXISTS ${q(role(who))}`);
    await root.query(`GRANT ${q(role(who))} TO ${q(login(who))}@'localhost'`);
    await root.query(`SET DEFAULT ROLE ${q(role(who))} FOR ${q(login(who))}@'localhost'`);
  };

  beforeAll(async () => {
    root = await mysql.createConnection({ socketPath: MYSQL_SOCKET, user: "root" });
    await root.query(`CREATE DATABASE ${q(db)}`);
    await root.query(`CREATE TABLE ${q(db)}.people (id INT, name TEXT, email TEXT, ssn TEXT)`);
    await root.query(`INSERT INTO ${q(db)}.people VALUES (1, 'Ada', 'ada@example.org', '123-45-6789')`);
    for (const who of Object.keys(TEAMS) as Who[]) {
      await root.query(`CREATE USER ${q(login(who))}@'localhost'`);
      await makeRole(who);
    }
    t = await startTestServer("sqlite");
    api = new StewardClient({ baseUrl: t.url, apiKey: t.key });
    expect((await t.api("PUT", `/api/teams/${owner}`, { name: owner })).status).toBe(200);
    const contract = {
      apiVersion: "v3.1.0",
      kind: "DataContract",
      id: "people",
      version: "1.0.0",
      status: "active",
      team: { name: owner },
      roles: [{ role: "analyst", customProperties: [{ property: "maxClassification", value: "internal" }, { property: "maskClassification", value: "confidential" }] }],
      schema: [
        {
          name: "people",
          properties: [
            { name: "id", classification: "public" },
            { name: "name", classification: "internal" },
            { name: "email", classification: "confidential" },
            { name: "ssn", classification: "restricted" },
          ],
        },
      ],
    };
    expect((await t.api("PUT", "/api/datacontracts/people", contract)).status).toBe(200);
    const outputPorts = [
      { id: "people", type: "mariadb", dataContractId: "people", server: { host: "mariadb", schema: db, table: "people" } },
      { id: "whole", type: "mysql", server: { host: "mariadb", schema: db } },
    ];
    expect((await t.api("PUT", "/api/dataproducts/people", { info: { title: "People", owner }, outputPorts })).status).toBe(200);
    for (const [who, port, roles] of [["analyst", "people", ["analyst"]], ["whole", "whole", []]] as const) {
      expect((await t.api("PUT", `/api/teams/${TEAMS[who]}`, { name: TEAMS[who] })).status).toBe(200);
      const body = { info: { purpose: "reconcile" }, provider: { dataProductId: "people", outputPortId: port }, consumer: { teamId: TEAMS[who] }, roles };
      expect((await t.api("PUT", `/api/access/${who}`, body)).status).toBe(200);
      expect((await t.api("POST", `/api/access/${who}/approve`)).status).toBe(200);
    }
    await runFeed();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    if (root) {
      for (const name of [db, masks, ledger]) await root.query(`DROP DATABASE IF EXISTS ${q(name)}`);
      for (const who of Object.keys(TEAMS) as Who[]) {
        await root.query(`DROP USER IF EXISTS ${q(login(who))}@'localhost'`);
        await root.query(`DROP ROLE IF EXISTS ${q(role(who))}`);
      }
      await root.end();
    }
  });

  it("finds nothing right after granting", async () => {
    expect(await readAs("analyst", `SELECT name AS v FROM ${q(db)}.people`)).toBe("Ada");
    expect(await readAs("whole", `SELECT ssn AS v FROM ${q(db)}.people`)).toBe("123-45-6789");
    expect(await reconcile()).toEqual([]);
  });

  it("revokes a column privilege added by hand, and reports it", async () => {
    await root.query(`GRANT SELECT (ssn) ON ${q(db)}.people TO ${q(role("analyst"))}`);
    expect(await readAs("analyst", `SELECT ssn AS v FROM ${q(db)}.people`)).toBe("123-45-6789");
    expect(await reconcile()).toEqual(["extra-privilege"]);
    expect(await readAs("analyst", `SELECT ssn AS v FROM ${q(db)}.people`)).toEqual({ refused: 1143 });
    expect(await readAs("analyst", `SELECT name AS v FROM ${q(db)}.people`)).toBe("Ada");
    const record = (await t.api("GET", "/api/access/analyst")).body.provisioning;
    expect(record).toMatchObject({ status: "provisioned", platform: "mysql" });
    expect(record.diagnostics.drift[0]).toMatchObject({ kind: "extra-privilege", what: expect.stringContaining(`SELECT on column ${db}.people.ssn`) });
  });

  it("grants a column privilege revoked by hand again", async () => {
    await root.query(`REVOKE SELECT (name) ON ${q(db)}.people FROM ${q(role("analyst"))}`);
    expect(await readAs("analyst", `SELECT name AS v FROM ${q(db)}.people`)).toEqual({ refused: 1143 });
    expect(await reconcile()).toEqual(["missing-privilege"]);
    expect(await readAs("analyst", `SELECT name AS v FROM ${q(db)}.people`)).toBe("Ada");
  });

  it("makes a masking view changed by hand again, so the mask is back", async () => {
    const view = `${q(masks)}.${q(maskViewName(role("analyst"), db, "people"))}`;
    expect(await readAs("analyst", `SELECT email AS v FROM ${view}`)).toBe("****");
    await root.query(`CREATE OR REPLACE SQL SECURITY DEFINER VIEW ${view} AS SELECT id, name, email FROM ${q(db)}.people`);
    expect(await readAs("analyst", `SELECT email AS v FROM ${view}`)).toBe("ada@example.org");
    expect(await reconcile(true)).toEqual(["changed-mask-view"]);
    expect(await readAs("analyst", `SELECT email AS v FROM ${view}`)).toBe("ada@example.org");
    expect(await reconcile()).toEqual(["changed-mask-view"]);
    expect(await readAs("analyst", `SELECT email AS v FROM ${view}`)).toBe("****");
    expect((await t.api("GET", "/api/access/analyst")).body.provisioning).toMatchObject({ status: "provisioned", diagnostics: { drift: [{ kind: "changed-mask-view" }] } });
    expect(await reconcile()).toEqual([]);
  });

  it("creates a dropped role again with its database grant", async () => {
    await root.query(`DROP ROLE ${q(role("whole"))}`);
    expect(await reconcile()).toEqual(["dropped-role"]);
    const [grants] = await root.query(`SHOW GRANTS FOR ${q(role("whole"))}`);
    expect((grants as Array<Record<string, string>>).map((g) => Object.values(g)[0])).toContain(`GRANT SELECT ON \`${db}\`.* TO \`${role("whole")}\``);
    await makeRole("whole"); // the login's membership is the operator's to give back
    expect(await readAs("whole", `SELECT id AS v FROM ${q(db)}.people`)).toBe(1);
  });

  it("revokes an access that ended while the connector was not following the feed", async () => {
    expect((await t.api("POST", "/api/access/analyst/cancel", {})).status).toBe(200);
    expect(await reconcile()).toEqual(["ended-access"]);
    expect(await readAs("analyst", `SELECT id AS v FROM ${q(db)}.people`)).toEqual({ refused: 1142 });
    expect((await t.api("GET", "/api/access/analyst")).body.provisioning.status).toBe("deprovisioned");
    expect(await reconcile()).toEqual([]);
  });
});
