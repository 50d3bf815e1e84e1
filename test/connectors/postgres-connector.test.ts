import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore, type PositionStore } from "../../src/consumer/index.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { POSTGRES_URL } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { runCli } from "../helpers/cli.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const suffix = randomBytes(3).toString("hex");
const schema = `shop_${suffix}`;
const ledgerSchema = `steward_${suffix}`;
const consumerTeam = `mkt${suffix}`;
const teamRole = `team_${consumerTeam}`;
const productRole = `analytics_${suffix}`;
const userRole = `ada_${suffix}@example.com`;

describe("PostgreSQL access connector", () => {
  let t: TestServer;
  let db: pg.Client;
  let connector: PostgresAccessConnector;
  const store = new MemoryPositionStore();

  const server = (extra: Record<string, unknown> = {}) => {
    const url = new URL(POSTGRES_URL);
    return { host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1), schema, ...extra };
  };

  /** Runs the connector until it has handled everything on the feed. */
  const runConnector = (from: PositionStore = store) =>
    new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store: from, types: [...HANDLED_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();

  const canSelect = async (role: string, table: string) =>
    (await db.query("SELECT has_table_privilege($1, $2, 'SELECT') AS ok", [role, `${schema}.${table}`])).rows[0].ok as boolean;

  /** A real query as the role. */
  const countAs = async (role: string, table: string): Promise<number | string> => {
    await db.query("BEGIN");
    try {
      await db.query(`SET LOCAL ROLE "${role.replace(/"/g, '""')}"`);
      return Number((await db.query(`SELECT count(*) AS n FROM ${schema}.${table}`)).rows[0].n);
    } catch (error) {
      return (error as { code: string }).code;
    } finally {
      await db.query("ROLLBACK");
    }
  };

  const requestAccess = async (id: string, outputPortId: string, consumer: Record<string, string>) => {
    expect((await t.api("PUT", `/api/access/${id}`, { info: { purpose: "test" }, provider: { dataProductId: "orders", outputPortId }, consumer })).status).toBe(200);
    expect((await t.api("POST", `/api/access/${id}/approve`)).status).toBe(200);
  };
  const provisioning = async (id: string) => (await t.api("GET", `/api/access/${id}`)).body.provisioning;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: POSTGRES_URL });
    await db.connect();
    await db.query(`CREATE SCHEMA ${schema}`);
    await db.query(`CREATE TABLE ${schema}.orders (id int, amount numeric)`);
    await db.query(`INSERT INTO ${schema}.orders VALUES (1, 10), (2, 20), (3, 30)`);
    await db.query(`CREATE TABLE ${schema}.customers (id int)`);

    const url = new URL(POSTGRES_URL);
    connector = new PostgresAccessConnector({ user: decodeURIComponent(url.username) || "postgres", password: url.password || undefined, ledgerSchema });
    t = await startTestServer("sqlite");
    await t.api("PUT", "/api/teams/sales", { name: "Sales" });
    await t.api("PUT", `/api/teams/${consumerTeam}`, { name: "Marketing" });
    await t.api("PUT", "/api/dataproducts/orders", {
      info: { title: "Orders", owner: "sales" },
      outputPorts: [
        { id: "orders-table", type: "postgres", server: server({ table: "orders" }) },
        { id: "whole-schema", type: "postgres", server: server() },
        { id: "broken", type: "postgres", server: server({ schema: `no_such_schema_${suffix}` }) },
        { id: "stream", type: "kafka", server: { host: "kafka:9092", topic: "orders" } },
      ],
    });
    await t.api("PUT", "/api/dataproducts/analytics", { info: { title: "Analytics", owner: consumerTeam }, custom: { postgresRole: productRole } });
  });

  afterAll(async () => {
    await connector?.close();
    await t?.close();
    if (db) {
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.query(`DROP SCHEMA IF EXISTS ${ledgerSchema} CASCADE`);
      for (const role of [teamRole, productRole, userRole]) {
        const exists = await db.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
        if (exists.rowCount) {
          await db.query(`DROP OWNED BY "${role}"`);
          await db.query(`DROP ROLE "${role}"`);
        }
      }
      await db.end();
    }
  });

  it("grants SELECT on the port's table to team_<team> when the access activates, and reports it", async () => {
    expect(await canSelect("postgres", "orders")).toBe(true);
    await requestAccess("team-access", "orders-table", { teamId: consumerTeam });
    await runConnector();
    expect(await canSelect(teamRole, "orders")).toBe(true);
    expect(await countAs(teamRole, "orders")).toBe(3);
    expect(await canSelect(teamRole, "customers")).toBe(false);
    const record = await provisioning("team-access");
    expect(record).toMatchObject({ status: "provisioned", platform: "postgres", executor: "steward-postgres-connector" });
    expect(record.reference).toBe(`GRANT SELECT ON "${schema}"."orders" TO "${teamRole}"`);
    const roles = await db.query("SELECT rolcanlogin FROM pg_roles WHERE rolname = $1", [teamRole]);
    expect(roles.rows).toEqual([{ rolcanlogin: false }]);
  });

  it("revokes when the access is canceled", async () => {
    expect((await t.api("POST", "/api/access/team-access/cancel")).status).toBe(200);
    await runConnector();
    expect(await canSelect(teamRole, "orders")).toBe(false);
    expect(await countAs(teamRole, "orders")).toBe("42501");
    const record = await provisioning("team-access");
    expect(record.status).toBe("deprovisioned");
    expect(record.reference).toBe(`REVOKE SELECT ON "${schema}"."orders" FROM "${teamRole}"`);
  });

  it("uses the consuming data product's custom.postgresRole, and a whole-schema port grants every table", async () => {
    await requestAccess("product-access", "whole-schema", { dataProductId: "analytics" });
    await runConnector();
    expect(await canSelect(productRole, "orders")).toBe(true);
    expect(await canSelect(productRole, "customers")).toBe(true);
    expect(await countAs(productRole, "orders")).toBe(3);
  });

  it("names a user's role after the user", async () => {
    await requestAccess("user-access", "orders-table", { userId: userRole });
    await runConnector();
    expect(await canSelect(userRole, "orders")).toBe(true);
  });

  it("reports provisioning-failed with diagnostics when the schema does not exist", async () => {
    await requestAccess("broken-access", "broken", { teamId: consumerTeam });
    await runConnector();
    const record = await provisioning("broken-access");
    expect(record.status).toBe("provisioning-failed");
    expect(record.diagnostics.message).toMatch(/no_such_schema/);
    expect(JSON.stringify(record)).not.toMatch(/password/i);
  });

  it("leaves ports of other types alone", async () => {
    await requestAccess("kafka-access", "stream", { teamId: consumerTeam });
    await runConnector();
    expect(await provisioning("kafka-access")).toBeUndefined();
  });

  it("keeps a privilege two accesses share until the last of them ends", async () => {
    await requestAccess("shared-1", "orders-table", { teamId: consumerTeam });
    await requestAccess("shared-2", "orders-table", { teamId: consumerTeam });
    await runConnector();
    expect(await canSelect(teamRole, "orders")).toBe(true);
    await t.api("POST", "/api/access/shared-1/cancel");
    await runConnector();
    expect(await canSelect(teamRole, "orders")).toBe(true);
    // Deleting an active access deactivates it; the ledger still knows what to revoke.
    expect((await t.api("DELETE", "/api/access/shared-2")).status).toBe(204);
    await runConnector();
    expect(await canSelect(teamRole, "orders")).toBe(false);
  });

  it("leaves the same privileges after replaying the whole feed", async () => {
    const snapshot = async () => {
      const out: Record<string, boolean> = {};
      for (const role of [teamRole, productRole, userRole]) for (const table of ["orders", "customers"]) out[`${role}/${table}`] = await canSelect(role, table);
      return out;
    };
    const before = await snapshot();
    const provisioningEvents = async () =>
      ((await t.api("GET", "/api/events")).body as any[]).filter((e) => /Provision/.test(e.type)).length;
    const reportsBefore = await provisioningEvents();
    await runConnector(new MemoryPositionStore());
    expect(await snapshot()).toEqual(before);
    expect(before[`${productRole}/orders`]).toBe(true);
    expect(before[`${teamRole}/orders`]).toBe(false);
    // Provisioned accesses are not reported again on a replay.
    const replayReports = (await provisioningEvents()) - reportsBefore;
    expect(replayReports).toBeLessThanOrEqual(2); // the broken port is retried and fails again
  });

  it("runs as `steward connector postgres`, with settings from a file and no secret in its output", async () => {
    await requestAccess("cli-access", "orders-table", { userId: userRole });
    await t.api("POST", "/api/access/user-access/cancel");
    const dir = mkdtempSync(join(tmpdir(), "steward-connector-"));
    const url = new URL(POSTGRES_URL);
    const password = "not-really-secret-" + suffix;
    writeFileSync(join(dir, "pg.json"), JSON.stringify({ user: decodeURIComponent(url.username) || "postgres", password, ledgerSchema }));
    const position = join(dir, "position");
    // Start after everything this file has already handled.
    writeFileSync(position, (await store.load()) ?? "");
    const res = await runCli(["connector", "postgres", "--url", t.url, "--config", join(dir, "pg.json"), "--position-file", position, "--once"], { STEWARD_API_KEY: t.key });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout + res.stderr).not.toContain(password);
    expect(res.stdout + res.stderr).not.toContain(t.key);
    expect(await canSelect(userRole, "orders")).toBe(true); // cli-access is active; user-access ended but the role still has cli-access's grant
    expect((await provisioning("cli-access")).status).toBe("provisioned");
    expect((await provisioning("user-access")).status).toBe("deprovisioned");
  });
});
