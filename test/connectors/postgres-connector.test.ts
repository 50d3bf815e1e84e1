import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore, type PositionStore } from "../../src/consumer/index.js";
import { parseConnectorConfig } from "../../src/connectors/postgres/config.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { POSTGRES_URL } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { runCli } from "../helpers/cli.js";

// Roles are shared by the whole PostgreSQL cluster: every name here carries this file's suffix.
const suffix = randomBytes(3).toString("hex");
const shop = `shop_${suffix}`;
const finance = `fin_${suffix}`;
const ledgerSchema = `ledger_${suffix}`;
const archiveDb = `archive_${suffix}`;
const sales = `sales${suffix}`;
const marketing = `mkt${suffix}`;
const marketingRole = `steward_team_${marketing}`;
const victim = `victim_${suffix}`;

const url = new URL(POSTGRES_URL);
const connection = (database: string) => ({
  host: url.hostname,
  port: Number(url.port || 5432),
  database,
  user: decodeURIComponent(url.username) || "postgres",
  ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
});
const mainDb = url.pathname.slice(1);

/** The operator's configuration: `warehouse` is this machine's test database, `archive` another database. */
const rawConfig = {
  servers: {
    warehouse: {
      connection: connection(mainDb),
      grantable: [
        { team: sales, schema: shop },
        { team: sales, schema: `no_such_schema_${suffix}` },
      ],
    },
    archive: { connection: connection(archiveDb), grantable: [{ team: sales, schema: shop }] },
  },
  ledger: { server: "warehouse", schema: ledgerSchema },
  timeouts: { connectMs: 10_000, statementMs: 10_000, lockMs: 1_000 },
};
const config = parseConnectorConfig(rawConfig);

describe("PostgreSQL access connector", () => {
  let t: TestServer;
  let db: pg.Client;
  let archive: pg.Client;
  const connector = new PostgresAccessConnector(config);
  const store = new MemoryPositionStore();
  /** The connector runs with the least-privilege key its documentation asks for (docs/consumers.md). */
  let connectorKey = "";

  /** Runs the connector until it has handled everything on the feed. */
  const runConnector = (from: PositionStore = store) =>
    new FeedConsumer({ baseUrl: t.url, apiKey: connectorKey, store: from, types: [...HANDLED_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();

  const canSelect = async (role: string, table: string, on: pg.Client = db) =>
    (await on.query("SELECT has_table_privilege($1, $2, 'SELECT') AS ok", [role, table])).rows[0].ok as boolean;

  /** A real query as the role. */
  const countAs = async (role: string, table: string): Promise<number | string> => {
    await db.query("BEGIN");
    try {
      await db.query(`SET LOCAL ROLE ${pg.escapeIdentifier(role)}`);
      return Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
    } catch (error) {
      return (error as { code: string }).code;
    } finally {
      await db.query("ROLLBACK");
    }
  };
  const roleExists = async (role: string) => ((await db.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role])).rowCount ?? 0) > 0;

  const port = (id: string, server: Record<string, unknown>) => ({ id, type: "postgres", server: { host: "warehouse", database: mainDb, ...server } });
  const putProduct = async (id: string, owner: string, outputPorts: unknown[], extra: Record<string, unknown> = {}) =>
    expect((await t.api("PUT", `/api/dataproducts/${id}`, { info: { title: id, owner }, outputPorts, ...extra })).status).toBe(200);
  const requestAccess = async (id: string, dataProductId: string, outputPortId: string, consumer: Record<string, string>) => {
    expect((await t.api("PUT", `/api/access/${id}`, { info: { purpose: "test" }, provider: { dataProductId, outputPortId }, consumer })).status).toBe(200);
    const approved = await t.api("POST", `/api/access/${id}/approve`);
    expect([200, 409]).toContain(approved.status); // auto-approved ports are approved already
  };
  const provisioning = async (id: string) => (await t.api("GET", `/api/access/${id}`)).body.provisioning;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    for (const schema of [shop, finance]) await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${shop}.orders (id int, amount numeric)`);
    await db.query(`INSERT INTO ${shop}.orders VALUES (1, 10), (2, 20), (3, 30)`);
    await db.query(`CREATE TABLE ${shop}.customers (id int)`);
    await db.query(`CREATE TABLE ${finance}.salaries (name text, salary numeric)`);
    await db.query(`CREATE ROLE ${victim} NOLOGIN`);
    await db.query(`GRANT USAGE ON SCHEMA ${shop} TO ${victim}`);
    await db.query(`GRANT SELECT ON ${shop}.customers TO ${victim}`);
    await db.query(`CREATE DATABASE ${archiveDb}`);
    archive = new pg.Client({ ...connection(archiveDb) });
    await archive.connect();
    await archive.query(`CREATE SCHEMA ${shop}`);
    await archive.query(`CREATE TABLE ${shop}.orders (id int)`);

    t = await startTestServer("sqlite");
    connectorKey = (await t.api("POST", "/api/api-keys", { scope: "connector", displayName: "postgres connector" })).body.key;
    for (const team of [sales, marketing]) expect((await t.api("PUT", `/api/teams/${team}`, { name: team })).status).toBe(200);
    await putProduct("orders", sales, [
      port("orders-table", { schema: shop, table: "orders" }),
      port("whole-schema", { schema: shop }),
      port("broken", { schema: `no_such_schema_${suffix}` }),
      { id: "stream", type: "kafka", server: { host: "kafka:9092", topic: "orders" } },
    ]);
  });

  afterAll(async () => {
    await t?.close();
    await archive?.end();
    if (db) {
      await db.query(`DROP DATABASE IF EXISTS ${archiveDb} WITH (FORCE)`);
      for (const schema of [shop, finance, ledgerSchema]) await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      const roles = await db.query<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE rolname LIKE $1", [`%${suffix}%`]);
      for (const { rolname } of roles.rows) {
        await db.query(`DROP OWNED BY ${pg.escapeIdentifier(rolname)}`);
        await db.query(`DROP ROLE ${pg.escapeIdentifier(rolname)}`);
      }
      await db.end();
    }
  });

  it("grants SELECT on the port's table to steward_team_<team> when the access activates, and reports it", async () => {
    await requestAccess("team-access", "orders", "orders-table", { teamId: marketing });
    await runConnector();
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(true);
    expect(await countAs(marketingRole, `${shop}.orders`)).toBe(3);
    expect(await canSelect(marketingRole, `${shop}.customers`)).toBe(false);
    const record = await provisioning("team-access");
    expect(record).toMatchObject({ status: "provisioned", platform: "postgres", executor: "steward-postgres-connector" });
    expect(record.reference).toBe(`GRANT SELECT ON "${shop}"."orders" TO "${marketingRole}"`);
    const roles = await db.query("SELECT rolcanlogin, rolsuper FROM pg_roles WHERE rolname = $1", [marketingRole]);
    expect(roles.rows).toEqual([{ rolcanlogin: false, rolsuper: false }]);
    const ledger = await db.query(`SELECT access_id, server, role, schema_name, table_name FROM ${ledgerSchema}.grants`);
    expect(ledger.rows).toEqual([{ access_id: "team-access", server: "warehouse", role: marketingRole, schema_name: shop, table_name: "orders" }]);
  });

  it("revokes when the access is canceled", async () => {
    expect((await t.api("POST", "/api/access/team-access/cancel")).status).toBe(200);
    await runConnector();
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(false);
    expect(await countAs(marketingRole, `${shop}.orders`)).toBe("42501");
    const record = await provisioning("team-access");
    expect(record.status).toBe("deprovisioned");
    expect(record.reference).toBe(`REVOKE SELECT ON "${shop}"."orders" FROM "${marketingRole}"`);
  });

  it("refuses a port on a schema or table outside its owner team's mapping, and grants nothing (confused deputy)", async () => {
    // Sales publishes a port on finance's salaries and marketing one on sales' schema: both are
    // their own products, so their accesses are approved, but neither object is theirs to give.
    await putProduct("salaries", sales, [port("salaries", { schema: finance, table: "salaries" })]);
    await putProduct("borrowed", marketing, [port("shop", { schema: shop })]);
    await requestAccess("deputy-1", "salaries", "salaries", { teamId: marketing });
    await requestAccess("deputy-2", "borrowed", "shop", { teamId: marketing });
    await runConnector();
    expect(await canSelect(marketingRole, `${finance}.salaries`)).toBe(false);
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(false);
    for (const [id, reason] of [
      ["deputy-1", `Team '${sales}' may not grant table '${finance}.salaries' on server 'warehouse'`],
      ["deputy-2", `Team '${marketing}' may not grant schema '${shop}' on server 'warehouse'`],
    ]) {
      const record = await provisioning(id);
      expect(record.status).toBe("provisioning-failed");
      expect(record.diagnostics.message).toContain(reason);
    }
  });

  it("refuses a port whose database is not the configured server's", async () => {
    await putProduct("elsewhere", sales, [port("p", { database: "postgres", schema: shop })]);
    await requestAccess("elsewhere-access", "elsewhere", "p", { teamId: marketing });
    await runConnector();
    expect((await provisioning("elsewhere-access")).diagnostics.message).toMatch(/names database 'postgres', but the configured server 'warehouse' is another database/);
  });

  it("ignores custom.postgresRole: a consuming product's access goes to its owner team's role, and no other role is touched", async () => {
    await putProduct("analytics", marketing, [], { custom: { postgresRole: victim } });
    await requestAccess("product-access", "orders", "whole-schema", { dataProductId: "analytics" });
    await runConnector();
    expect((await provisioning("product-access")).status).toBe("provisioned");
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(true);
    expect(await canSelect(marketingRole, `${shop}.customers`)).toBe(true);
    expect(await canSelect(victim, `${shop}.orders`)).toBe(false);
    // Ending it revokes from the connector's role only: the victim keeps what it had.
    expect((await t.api("POST", "/api/access/product-access/cancel")).status).toBe(200);
    await runConnector();
    expect(await canSelect(marketingRole, `${shop}.customers`)).toBe(false);
    expect(await canSelect(victim, `${shop}.customers`)).toBe(true);
  });

  it("gives a user a role of the connector's scheme, whatever the user id holds", async () => {
    const userId = `ada_${suffix}@example.com"; DROP ROLE ${victim}; --`;
    await requestAccess("user-access", "orders", "orders-table", { userId });
    await runConnector();
    const record = await provisioning("user-access");
    expect(record.status).toBe("provisioned");
    const role = /TO "(steward_user_[^"]+)"$/.exec(record.reference)![1];
    expect(role).toMatch(new RegExp(`^steward_user_ada_${suffix}_example_com`));
    expect(await canSelect(role, `${shop}.orders`)).toBe(true);
    expect(await roleExists(victim)).toBe(true);
  });

  it("reports provisioning-failed when the mapped schema does not exist", async () => {
    await requestAccess("broken-access", "orders", "broken", { teamId: marketing });
    await runConnector();
    const record = await provisioning("broken-access");
    expect(record.status).toBe("provisioning-failed");
    expect(record.diagnostics).toMatchObject({ code: "3F000", message: expect.stringMatching(/no_such_schema/) });
    expect(JSON.stringify(record)).not.toMatch(/password|127\.0\.0\.1|5432/i);
    // Nothing is left in the ledger for a grant that did not happen.
    expect((await db.query(`SELECT 1 FROM ${ledgerSchema}.grants WHERE access_id = 'broken-access'`)).rowCount).toBe(0);
  });

  it("leaves ports of other types alone", async () => {
    await requestAccess("kafka-access", "orders", "stream", { teamId: marketing });
    await runConnector();
    expect(await provisioning("kafka-access")).toBeUndefined();
  });

  it("keeps a privilege two accesses share until the last of them ends, even when it is deleted", async () => {
    await requestAccess("shared-1", "orders", "orders-table", { teamId: marketing });
    await requestAccess("shared-2", "orders", "orders-table", { teamId: marketing });
    await runConnector();
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(true);
    await t.api("POST", "/api/access/shared-1/cancel");
    await runConnector();
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(true);
    expect((await t.api("DELETE", "/api/access/shared-2")).status).toBe(204);
    await runConnector();
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(false);
  });

  it("revokes at the old place after the port moved to another database, because the ledger says where it granted", async () => {
    await requestAccess("moving", "orders", "orders-table", { teamId: marketing });
    await runConnector();
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(true);
    // The port now points at the archive database; the access is then canceled.
    await putProduct("orders", sales, [
      { id: "orders-table", type: "postgres", server: { host: "archive", database: archiveDb, schema: shop, table: "orders" } },
      port("whole-schema", { schema: shop }),
      port("broken", { schema: `no_such_schema_${suffix}` }),
      { id: "stream", type: "kafka", server: { host: "kafka:9092", topic: "orders" } },
    ]);
    expect((await t.api("POST", "/api/access/moving/cancel")).status).toBe(200);
    await runConnector();
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(false);
    expect((await provisioning("moving")).status).toBe("deprovisioned");

    // Granted after the move, it is granted in the archive database.
    await requestAccess("moved", "orders", "orders-table", { teamId: marketing });
    await runConnector();
    expect(await canSelect(marketingRole, `${shop}.orders`, archive)).toBe(true);
    expect(await canSelect(marketingRole, `${shop}.orders`)).toBe(false);
  });

  it("leaves the same privileges after replaying the whole feed", async () => {
    const snapshot = async () => {
      const out: Record<string, boolean> = {};
      for (const table of [`${shop}.orders`, `${shop}.customers`, `${finance}.salaries`]) out[table] = await canSelect(marketingRole, table);
      out.archive = await canSelect(marketingRole, `${shop}.orders`, archive);
      return out;
    };
    const before = await snapshot();
    const events = async () => ((await t.api("GET", "/api/events")).body as { type: string }[]).filter((e) => /Provision/.test(e.type)).length;
    const reportsBefore = await events();
    await runConnector(new MemoryPositionStore());
    expect(await snapshot()).toEqual(before);
    expect(before.archive).toBe(true);
    // Provisioned accesses are not reported again; the refused and broken ones fail again.
    expect((await events()) - reportsBefore).toBeLessThanOrEqual(12);
  });

  it("runs as `steward connector postgres` with a YAML configuration, the password from a variable and no secret in its output", async () => {
    const dir = mkdtempSync(join(tmpdir(), "steward-connector-"));
    try {
      // This machine's PostgreSQL trusts local connections, so any password is accepted.
      const password = `not-really-secret-${suffix}`;
      const warehouse = { ...rawConfig.servers.warehouse, connection: { ...rawConfig.servers.warehouse.connection, password: undefined, passwordEnv: "WAREHOUSE_PASSWORD" } };
      writeFileSync(join(dir, "connector.yaml"), stringify({ ...rawConfig, servers: { ...rawConfig.servers, warehouse } }));
      const position = join(dir, "position");
      writeFileSync(position, (await store.load()) ?? ""); // start after everything handled above
      await requestAccess("cli-access", "orders", "whole-schema", { teamId: marketing });
      const res = await runCli(["connector", "postgres", "--url", t.url, "--config", join(dir, "connector.yaml"), "--position-file", position, "--once"], {
        STEWARD_API_KEY: connectorKey,
        WAREHOUSE_PASSWORD: password,
      });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('granted {"accessId":"cli-access","server":"warehouse"');
      expect(res.stdout + res.stderr).not.toContain(password);
      expect(res.stdout + res.stderr).not.toContain(connectorKey);
      expect((await provisioning("cli-access")).status).toBe("provisioned");
      expect(await canSelect(marketingRole, `${shop}.customers`)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
