import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore, StewardClient } from "../../src/consumer/index.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { maskViewName } from "../../src/connectors/postgres/grants.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ADMIN_DATABASE, pgConnection, pgReadAs, pgTestConfig } from "./support.js";

/**
 * Reconciliation against a real server: each kind of drift is made by hand in SQL, and one pass
 * finds it, repairs it, reports it on the access (with its event), and a real login's query
 * shows the privilege before and after.
 */

const suffix = randomBytes(3).toString("hex");
const warehouseDb = `recon_${suffix}`;
const owner = `owner${suffix}`;
const maskSchema = `masks_${suffix}`;
const config = pgTestConfig(warehouseDb, owner, maskSchema);

const contract = (nameClass: string) => ({
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
        { name: "id", logicalType: "integer", classification: "public" },
        { name: "name", logicalType: "string", classification: nameClass },
        { name: "email", logicalType: "string", classification: "confidential" },
        { name: "ssn", logicalType: "string", classification: "restricted" },
      ],
    },
  ],
});

/** The analyst (columns and a mask), a whole-schema reader, and a whole-table reader. */
const TEAMS = { analyst: `ta${suffix}`, schema: `tb${suffix}`, table: `tc${suffix}` } as const;
type Who = keyof typeof TEAMS;
const role = (who: Who) => roleFor({ team: TEAMS[who] });
const login = (who: Who) => `login_${who}_${suffix}`;
const q = pg.escapeIdentifier;

describe("PostgreSQL reconciliation", () => {
  let t: TestServer;
  let admin: pg.Client;
  let db: pg.Client;
  let api: StewardClient;
  const connector = new PostgresAccessConnector(config);
  const store = new MemoryPositionStore();
  const runFeed = () => new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store, types: [...HANDLED_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();
  const reconcile = async (reportOnly = false) => (await connector.reconcile(api, new AbortController().signal, { reportOnly })).map((d) => d.kind);
  const view = `${q(maskSchema)}.${q(maskViewName(role("analyst"), "shop", "people"))}`;

  /** A real login's query: the value of `v`, or the SQLSTATE of the refusal. */
  const readAs = (who: Who, sql: string): Promise<unknown> => pgReadAs(warehouseDb, login(who), sql);
  const provisioning = async (id: Who) => (await t.api("GET", `/api/access/${id}`)).body.provisioning;
  const lastEvent = async (id: Who) => ((await t.api("GET", `/api/access/${id}/history`)).body as Array<{ kind: string }>).at(-1)?.kind;

  beforeAll(async () => {
    admin = new pg.Client(pgConnection(ADMIN_DATABASE));
    await admin.connect();
    await admin.query(`CREATE DATABASE ${warehouseDb}`);
    db = new pg.Client(pgConnection(warehouseDb));
    await db.connect();
    await db.query("CREATE SCHEMA shop");
    await db.query("CREATE TABLE shop.people (id int, name text, email text, ssn text)");
    await db.query("INSERT INTO shop.people VALUES (1, 'Ada', 'ada@example.org', '123-45-6789')");
    await db.query("CREATE TABLE shop.orders (id int)");
    await db.query("INSERT INTO shop.orders VALUES (7)");
    for (const who of Object.keys(TEAMS) as Who[]) {
      await admin.query(`CREATE ROLE ${q(role(who))} NOLOGIN`);
      await admin.query(`CREATE ROLE ${login(who)} LOGIN IN ROLE ${q(role(who))}`);
    }
    t = await startTestServer("sqlite");
    api = new StewardClient({ baseUrl: t.url, apiKey: t.key });
    expect((await t.api("PUT", `/api/teams/${owner}`, { name: owner })).status).toBe(200);
    expect((await t.api("PUT", "/api/datacontracts/people", contract("internal"))).status).toBe(200);
    const server = (extra: Record<string, string> = {}) => ({ host: "warehouse", schema: "shop", ...extra });
    const outputPorts = [
      { id: "people", type: "postgres", dataContractId: "people", server: server({ table: "people" }) },
      { id: "shop", type: "postgres", server: server() },
    ];
    expect((await t.api("PUT", "/api/dataproducts/people", { info: { title: "People", owner }, outputPorts })).status).toBe(200);
    const accesses: Array<[Who, string, string[]]> = [
      ["analyst", "people", ["analyst"]],
      ["schema", "shop", []],
      ["table", "people", []],
    ];
    for (const [who, port, roles] of accesses) {
      expect((await t.api("PUT", `/api/teams/${TEAMS[who]}`, { name: TEAMS[who] })).status).toBe(200);
      const body = { info: { purpose: "reconcile" }, provider: { dataProductId: "people", outputPortId: port }, consumer: { teamId: TEAMS[who] }, roles };
      expect((await t.api("PUT", `/api/access/${who}`, body)).status).toBe(200);
      expect((await t.api("POST", `/api/access/${who}/approve`)).status).toBe(200);
    }
    await runFeed();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await db?.end();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${warehouseDb} WITH (FORCE)`);
      const roles = await admin.query<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE rolname LIKE $1 ORDER BY rolname LIKE 'login%' DESC", [`%${suffix}%`]);
      for (const { rolname } of roles.rows) await admin.query(`DROP ROLE ${q(rolname)}`);
      await admin.end();
    }
  });

  it("finds nothing right after granting: no false reports", async () => {
    expect(await readAs("analyst", "SELECT name AS v FROM shop.people")).toBe("Ada");
    expect(await readAs("analyst", `SELECT email AS v FROM ${view}`)).toBe("****");
    expect(await readAs("schema", "SELECT id AS v FROM shop.orders")).toBe(7);
    expect(await reconcile()).toEqual([]);
  });

  it("revokes a privilege added by hand to a managed role, keeps the planned ones, and reports it with an event", async () => {
    await db.query(`GRANT SELECT (ssn) ON shop.people TO ${q(role("analyst"))}`);
    expect(await readAs("analyst", "SELECT ssn AS v FROM shop.people")).toBe("123-45-6789");
    expect(await reconcile()).toEqual(["extra-privilege"]);
    expect(await readAs("analyst", "SELECT ssn AS v FROM shop.people")).toEqual({ refused: "42501" });
    expect(await readAs("analyst", "SELECT name AS v FROM shop.people")).toBe("Ada");
    const record = await provisioning("analyst");
    expect(record.status).toBe("provisioned");
    expect(record.diagnostics.drift).toEqual([{ kind: "extra-privilege", what: expect.stringContaining("SELECT on column shop.people.ssn") }]);
    expect(await lastEvent("analyst")).toBe("AccessProvisionedEvent");
    expect(await reconcile()).toEqual([]);
  });

  it("a table-wide privilege added by hand goes, and the planned column privileges stay", async () => {
    await db.query(`GRANT SELECT ON shop.people TO ${q(role("analyst"))}`);
    expect(await reconcile()).toEqual(["extra-privilege"]);
    expect(await readAs("analyst", "SELECT ssn AS v FROM shop.people")).toEqual({ refused: "42501" });
    expect(await readAs("analyst", "SELECT id AS v FROM shop.people")).toBe(1);
    expect(await reconcile()).toEqual([]);
  });

  it("grants a privilege revoked by hand again", async () => {
    await db.query(`REVOKE SELECT (name) ON shop.people FROM ${q(role("analyst"))}`);
    expect(await readAs("analyst", "SELECT name AS v FROM shop.people")).toEqual({ refused: "42501" });
    expect(await reconcile()).toEqual(["missing-privilege"]);
    expect(await readAs("analyst", "SELECT name AS v FROM shop.people")).toBe("Ada");
    expect((await provisioning("analyst")).diagnostics.drift[0].kind).toBe("missing-privilege");
  });

  it("grants SELECT on a table created later in a whole-schema grant's schema", async () => {
    await db.query("CREATE TABLE shop.returns (id int)");
    await db.query("INSERT INTO shop.returns VALUES (3)");
    expect(await readAs("schema", "SELECT id AS v FROM shop.returns")).toEqual({ refused: "42501" });
    expect(await reconcile()).toEqual(["missing-privilege"]);
    expect(await readAs("schema", "SELECT id AS v FROM shop.returns")).toBe(3);
  });

  it("makes a masking view changed by hand again, so the mask is back", async () => {
    await db.query(`CREATE OR REPLACE VIEW ${view} AS SELECT id, name, email FROM shop.people`);
    expect(await readAs("analyst", `SELECT email AS v FROM ${view}`)).toBe("ada@example.org");
    expect(await reconcile()).toEqual(["changed-mask-view"]);
    expect(await readAs("analyst", `SELECT email AS v FROM ${view}`)).toBe("****");
    expect(await reconcile()).toEqual([]);
  });

  it("creates a dropped role again with its privileges", async () => {
    await db.query(`DROP OWNED BY ${q(role("table"))}`);
    await admin.query(`DROP ROLE ${q(role("table"))}`);
    expect(await reconcile()).toEqual(["dropped-role"]);
    const ok = await db.query("SELECT has_table_privilege($1, 'shop.people', 'SELECT') AS ok", [role("table")]);
    expect(ok.rows[0].ok).toBe(true);
    expect((await provisioning("table")).diagnostics.drift[0].kind).toBe("dropped-role");
    // The login lost its membership with the role; the operator's grant of it is not the connector's to make.
    await admin.query(`GRANT ${q(role("table"))} TO ${login("table")}`);
    expect(await readAs("table", "SELECT name AS v FROM shop.people")).toBe("Ada");
  });

  it("re-plans when the contract changes: a column newly classified above the ceiling is withheld", async () => {
    expect((await t.api("PUT", "/api/datacontracts/people", contract("restricted"))).status).toBe(200);
    expect(await reconcile()).toEqual(["replanned"]);
    expect(await readAs("analyst", "SELECT name AS v FROM shop.people")).toEqual({ refused: "42501" });
    expect(await readAs("analyst", "SELECT id AS v FROM shop.people")).toBe(1);
    expect(await reconcile()).toEqual([]);
  });

  it("only reports with reportOnly, once, and leaves the privilege", async () => {
    await db.query(`GRANT SELECT (ssn) ON shop.people TO ${q(role("analyst"))}`);
    expect(await reconcile(true)).toEqual(["extra-privilege"]);
    expect(await readAs("analyst", "SELECT ssn AS v FROM shop.people")).toBe("123-45-6789");
    const record = await provisioning("analyst");
    expect(record.status).toBe("provisioning-failed");
    expect(record.diagnostics.message).toMatch(/report only/);
    const history = (await t.api("GET", "/api/access/analyst/history")).body.length;
    expect(await reconcile(true)).toEqual(["extra-privilege"]);
    expect((await t.api("GET", "/api/access/analyst/history")).body.length).toBe(history);
    expect(await reconcile()).toEqual(["extra-privilege"]);
    expect(await readAs("analyst", "SELECT ssn AS v FROM shop.people")).toEqual({ refused: "42501" });
  });

  it("revokes at start what ended while the connector was not following the feed", async () => {
    expect((await t.api("POST", "/api/access/schema/cancel", {})).status).toBe(200);
    // No feed: only reconciliation sees the access ended.
    expect(await readAs("schema", "SELECT id AS v FROM shop.orders")).toBe(7);
    expect(await reconcile()).toEqual(["ended-access"]);
    expect(await readAs("schema", "SELECT id AS v FROM shop.orders")).toEqual({ refused: "42501" });
    expect((await provisioning("schema")).status).toBe("deprovisioned");
    expect(await lastEvent("schema")).toBe("AccessDeprovisionedEvent");
    expect(await reconcile()).toEqual([]);
    // The feed then replays the deactivation: nothing is left to revoke, nothing breaks.
    await runFeed();
    expect(await reconcile()).toEqual([]);
  });
});
