import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore } from "../../src/consumer/index.js";
import { Connections } from "../../src/connectors/postgres/connections.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { DATABASES } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createWarehouse, pgTestConfig, type Warehouse } from "./support.js";

/**
 * The connector keeps one connection per server between pieces of work, within an event and
 * across events (docs/consumers.md, "Connections"): a deactivation opens none before its REVOKE.
 * It gives a connection up after an error or when the server ends it, and ends it on close.
 */

/** The connector's backends on a warehouse database, by process id. */
async function connectorBackends(warehouse: Warehouse): Promise<number[]> {
  const result = await warehouse.admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'steward-connector' ORDER BY pid",
    [warehouse.database],
  );
  return result.rows.map((r) => r.pid);
}

/** Waits until the server no longer lists the connector's backends (a backend leaves the list as it exits). */
async function noBackendsLeft(warehouse: Warehouse): Promise<number[]> {
  for (let i = 0; i < 200; i++) {
    const left = await connectorBackends(warehouse);
    if (left.length === 0) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return connectorBackends(warehouse);
}

describe("PostgreSQL connector connections", () => {
  let warehouse: Warehouse;
  let connections: Connections;
  const signal = new AbortController().signal;
  const pid = (client: pg.Client) => client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid").then((r) => r.rows[0]!.pid);

  beforeAll(async () => {
    warehouse = await createWarehouse("pgconn");
    connections = new Connections(pgTestConfig(warehouse.database, "owner", "masks"));
  });

  afterAll(async () => {
    await connections?.close();
    await warehouse?.drop();
  });

  it("does one piece of work after another on the same connection", async () => {
    const first = await connections.with("warehouse", signal, pid);
    expect(await connections.with("warehouse", signal, pid)).toBe(first);
    expect(await connectorBackends(warehouse)).toEqual([first]);
  });

  it("gives a second piece of work, while the first runs, a connection of its own", async () => {
    const [outer, inner] = await connections.with("warehouse", signal, async (client) => [await pid(client), await connections.with("warehouse", signal, pid)]);
    expect(inner).not.toBe(outer);
    // One of the two is kept, the other ended.
    expect([outer, inner]).toContain(await connections.with("warehouse", signal, pid));
  });

  it("gives a connection up after a failed statement, and the next piece of work opens a new one", async () => {
    const before = await connections.with("warehouse", signal, pid);
    const failed = await connections.with("warehouse", signal, (c) => c.query("SELECT 1 / 0")).catch((error: { code?: string }) => error.code);
    expect(failed).toBe("22012");
    expect(await connections.with("warehouse", signal, pid)).not.toBe(before);
  });

  it("does the work on a new connection when the server ended the one it kept", async () => {
    const before = await connections.with("warehouse", signal, pid);
    // Waits (up to 60 s) until the backend has exited.
    await warehouse.admin.query("SELECT pg_terminate_backend($1, 60000)", [before]);
    // Whether the end reached the client before this work or during it, the work is done.
    const after = await connections.with("warehouse", signal, pid);
    expect(after).not.toBe(before);
    expect(await connectorBackends(warehouse)).toEqual([after]);
  });

  it("ends what it keeps on close", async () => {
    await connections.with("warehouse", signal, pid);
    await connections.close();
    expect(await noBackendsLeft(warehouse)).toEqual([]);
  });
});

describe.each(DATABASES)("PostgreSQL connector: one connection across events (Steward on %s)", (kind) => {
  let t: TestServer;
  let warehouse: Warehouse;
  let connector: PostgresAccessConnector;
  const store = new MemoryPositionStore();
  let owner = "";
  let consumer = "";

  const runConnector = () => new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store, types: [...HANDLED_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();
  const status = async (id: string) => (await t.api("GET", `/api/access/${id}`)).body.provisioning?.status;
  const canSelect = async () =>
    (await warehouse.db.query("SELECT has_table_privilege($1, 'shop.people', 'SELECT') AS ok", [roleFor({ team: consumer })])).rows[0].ok as boolean;
  const activate = async (id: string) => {
    expect((await t.api("PUT", `/api/access/${id}`, { info: { purpose: "test" }, provider: { dataProductId: "people", outputPortId: "people" }, consumer: { teamId: consumer } })).status).toBe(200);
    expect((await t.api("POST", `/api/access/${id}/approve`)).status).toBe(200);
  };

  beforeAll(async () => {
    warehouse = await createWarehouse("pgconnev");
    owner = `owner${warehouse.suffix}`;
    consumer = `reader${warehouse.suffix}`;
    await warehouse.db.query("CREATE SCHEMA shop");
    await warehouse.db.query("CREATE TABLE shop.people (id int)");
    connector = new PostgresAccessConnector(pgTestConfig(warehouse.database, owner, `masks_${warehouse.suffix}`));
    t = await startTestServer(kind);
    for (const team of [owner, consumer]) expect((await t.api("PUT", `/api/teams/${team}`, { name: team })).status).toBe(200);
    const port = { id: "people", type: "postgres", server: { host: "warehouse", schema: "shop", table: "people" } };
    expect((await t.api("PUT", "/api/dataproducts/people", { info: { title: "People", owner }, outputPorts: [port] })).status).toBe(200);
  });

  afterAll(async () => {
    await connector?.close();
    await t?.close();
    await warehouse?.drop();
  });

  it("revokes on the connection the activation left open, opening none", async () => {
    await activate("first");
    await runConnector();
    expect(await status("first")).toBe("provisioned");
    const kept = await connectorBackends(warehouse);
    expect(kept).toHaveLength(1);
    expect((await t.api("POST", "/api/access/first/cancel")).status).toBe(200);
    await runConnector();
    expect(await status("first")).toBe("deprovisioned");
    expect(await canSelect()).toBe(false);
    expect(await connectorBackends(warehouse)).toEqual(kept);
  });

  it("handles the next event on a new connection after the server ended the kept one", async () => {
    const [kept] = await connectorBackends(warehouse);
    await warehouse.admin.query("SELECT pg_terminate_backend($1, 60000)", [kept]);
    await activate("second");
    await runConnector();
    expect(await status("second")).toBe("provisioned");
    expect(await canSelect()).toBe(true);
    const now = await connectorBackends(warehouse);
    expect(now).toHaveLength(1);
    expect(now).not.toEqual([kept]);
  });

  it("ends its connection on close, and a later event opens one again", async () => {
    await connector.close();
    expect(await noBackendsLeft(warehouse)).toEqual([]);
    expect((await t.api("POST", "/api/access/second/cancel")).status).toBe(200);
    await runConnector();
    expect(await status("second")).toBe("deprovisioned");
    expect(await canSelect()).toBe(false);
  });
});
