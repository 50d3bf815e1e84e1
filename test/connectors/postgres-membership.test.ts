import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore, StewardClient } from "../../src/consumer/index.js";
import { parseConnectorConfig } from "../../src/connectors/postgres/config.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createWarehouse, pgConnection, q, type Warehouse } from "./support.js";

/**
 * Memberships of the connector's roles (docs/consumers.md, "Reconciliation"): the configuration
 * lists which login holds which role, the connector grants it, and a membership removed or added
 * by hand in SQL is found, reported and repaired, as a real login's query shows.
 */

describe("PostgreSQL role memberships", () => {
  let w: Warehouse;
  let t: TestServer;
  let api: StewardClient;
  let connector: PostgresAccessConnector;
  let team: string;
  let role: string;
  let alice: string;
  let bob: string;
  const store = new MemoryPositionStore();
  const reconcile = async (reportOnly = false) => (await connector.reconcile(api, new AbortController().signal, { reportOnly })).map((d) => d.kind);
  const provisioning = async () => (await t.api("GET", "/api/access/a1")).body.provisioning;
  const lastEvent = async () => ((await t.api("GET", "/api/access/a1/history")).body as Array<{ kind: string }>).at(-1)?.kind;

  beforeAll(async () => {
    w = await createWarehouse("members");
    const owner = `owner${w.suffix}`;
    team = `tm${w.suffix}`;
    role = roleFor({ team });
    alice = `alice_${w.suffix}`;
    bob = `bob_${w.suffix}`;
    await w.db.query("CREATE SCHEMA shop");
    await w.db.query("CREATE TABLE shop.people (id int)");
    await w.db.query("INSERT INTO shop.people VALUES (1)");
    await w.db.query("CREATE TABLE shop.secrets (v text)");
    await w.db.query("INSERT INTO shop.secrets VALUES ('hidden')");
    for (const login of [alice, bob]) await w.admin.query(`CREATE ROLE ${q(login)} LOGIN`);
    connector = new PostgresAccessConnector(
      parseConnectorConfig({
        servers: { warehouse: { connection: pgConnection(w.database), grantable: [{ team: owner, schema: "shop" }], members: [{ team, login: alice }] } },
        ledger: { server: "warehouse", schema: "ledger" },
        timeouts: { connectMs: 10_000, statementMs: 10_000, lockMs: 2_000 },
      }),
    );
    t = await startTestServer("sqlite");
    api = new StewardClient({ baseUrl: t.url, apiKey: t.key });
    for (const id of [owner, team]) expect((await t.api("PUT", `/api/teams/${id}`, { name: id })).status).toBe(200);
    const outputPorts = [{ id: "people", type: "postgres", server: { host: "warehouse", schema: "shop", table: "people" } }];
    expect((await t.api("PUT", "/api/dataproducts/people", { info: { title: "People", owner }, outputPorts })).status).toBe(200);
    const body = { info: { purpose: "members" }, provider: { dataProductId: "people", outputPortId: "people" }, consumer: { teamId: team } };
    expect((await t.api("PUT", "/api/access/a1", body)).status).toBe(200);
    expect((await t.api("POST", "/api/access/a1/approve")).status).toBe(200);
    await new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store, types: [...HANDLED_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await w?.drop();
  });

  it("makes the configured login a member of the role it grants, and finds nothing more", async () => {
    expect(await w.readAs(alice, "SELECT id AS v FROM shop.people")).toBe(1);
    expect(await w.readAs(bob, "SELECT id AS v FROM shop.people")).toEqual({ refused: "42501" });
    expect(await reconcile()).toEqual([]);
  });

  it("a membership revoked by hand is reported only with reportOnly, then given back, with an event", async () => {
    await w.db.query(`REVOKE ${q(role)} FROM ${q(alice)}`);
    expect(await w.readAs(alice, "SELECT id AS v FROM shop.people")).toEqual({ refused: "42501" });
    expect(await reconcile(true)).toEqual(["removed-membership"]);
    expect(await w.readAs(alice, "SELECT id AS v FROM shop.people")).toEqual({ refused: "42501" });
    expect(await provisioning()).toMatchObject({ status: "provisioning-failed", diagnostics: { drift: [{ kind: "removed-membership" }] } });
    expect(await reconcile()).toEqual(["removed-membership"]);
    expect(await w.readAs(alice, "SELECT id AS v FROM shop.people")).toBe(1);
    const record = await provisioning();
    expect(record.status).toBe("provisioned");
    expect(record.diagnostics.drift).toEqual([{ kind: "removed-membership", what: `login ${alice} is no longer a member of role ${role}` }]);
    expect(await lastEvent()).toBe("AccessProvisionedEvent");
    expect(await reconcile()).toEqual([]);
  });

  it("a role of the scheme made a member of another role by hand loses that membership", async () => {
    await w.admin.query(`GRANT pg_read_all_data TO ${q(role)}`);
    expect(await w.readAs(alice, "SELECT v FROM shop.secrets")).toBe("hidden");
    expect(await reconcile()).toEqual(["extra-membership"]);
    expect(await w.readAs(alice, "SELECT v FROM shop.secrets")).toEqual({ refused: "42501" });
    expect(await w.readAs(alice, "SELECT id AS v FROM shop.people")).toBe(1);
    expect(await reconcile()).toEqual([]);
  });

  it("a login the configuration does not list, made a member by hand, is taken out again", async () => {
    await w.db.query(`GRANT ${q(role)} TO ${q(bob)}`);
    expect(await w.readAs(bob, "SELECT id AS v FROM shop.people")).toBe(1);
    expect(await reconcile()).toEqual(["extra-membership"]);
    expect(await w.readAs(bob, "SELECT id AS v FROM shop.people")).toEqual({ refused: "42501" });
    expect(await w.readAs(alice, "SELECT id AS v FROM shop.people")).toBe(1);
  });

  it("a dropped role comes back with its configured member", async () => {
    await w.db.query(`DROP OWNED BY ${q(role)}`);
    await w.admin.query(`DROP ROLE ${q(role)}`);
    expect(await reconcile()).toEqual(["dropped-role"]);
    expect(await w.readAs(alice, "SELECT id AS v FROM shop.people")).toBe(1);
    expect(await reconcile()).toEqual([]);
  });
});
