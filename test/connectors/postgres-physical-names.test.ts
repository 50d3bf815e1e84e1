import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore, StewardClient } from "../../src/consumer/index.js";
import { parseConnectorConfig } from "../../src/connectors/postgres/config.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { maskViewName } from "../../src/connectors/postgres/grants.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createWarehouse, pgConnection, q, type Warehouse } from "./support.js";

/** A contract whose model and properties name their tables and columns with ODCS `physicalName`: the grant uses those names, as a real login's queries show. */

describe("PostgreSQL grants by physicalName", () => {
  let w: Warehouse;
  let t: TestServer;
  let connector: PostgresAccessConnector;
  let role: string;
  let login: string;

  beforeAll(async () => {
    w = await createWarehouse("physical");
    const owner = `owner${w.suffix}`;
    const team = `tp${w.suffix}`;
    role = roleFor({ team });
    login = `reader_${w.suffix}`;
    await w.db.query("CREATE SCHEMA shop");
    await w.db.query("CREATE TABLE shop.tbl_customers (cust_id int, cust_email text, ssn text)");
    await w.db.query("INSERT INTO shop.tbl_customers VALUES (1, 'ada@example.org', '123-45-6789')");
    await w.admin.query(`CREATE ROLE ${q(role)} NOLOGIN`);
    await w.admin.query(`CREATE ROLE ${q(login)} LOGIN IN ROLE ${q(role)}`);
    connector = new PostgresAccessConnector(
      parseConnectorConfig({
        servers: { warehouse: { connection: pgConnection(w.database), grantable: [{ team: owner, schema: "shop" }], maskSchema: "masks" } },
        ledger: { server: "warehouse", schema: "ledger" },
      }),
    );
    t = await startTestServer("sqlite");
    for (const id of [owner, team]) expect((await t.api("PUT", `/api/teams/${id}`, { name: id })).status).toBe(200);
    const contract = {
      apiVersion: "v3.1.0",
      kind: "DataContract",
      id: "customers",
      version: "1.0.0",
      status: "active",
      team: { name: owner },
      roles: [{ role: "analyst", customProperties: [{ property: "maxClassification", value: "internal" }, { property: "maskClassification", value: "confidential" }] }],
      schema: [
        {
          name: "customers",
          physicalName: "tbl_customers",
          properties: [
            { name: "id", physicalName: "cust_id", logicalType: "integer", classification: "public" },
            { name: "email", physicalName: "cust_email", logicalType: "string", classification: "confidential" },
            { name: "ssn", logicalType: "string", classification: "restricted" },
          ],
        },
      ],
    };
    expect((await t.api("PUT", "/api/datacontracts/customers", contract)).status).toBe(200);
    const outputPorts = [{ id: "customers", type: "postgres", dataContractId: "customers", server: { host: "warehouse", schema: "shop", table: "tbl_customers" } }];
    expect((await t.api("PUT", "/api/dataproducts/customers", { info: { title: "Customers", owner }, outputPorts })).status).toBe(200);
    const body = { info: { purpose: "physical" }, provider: { dataProductId: "customers", outputPortId: "customers" }, consumer: { teamId: team }, roles: ["analyst"] };
    expect((await t.api("PUT", "/api/access/a1", body)).status).toBe(200);
    expect((await t.api("POST", "/api/access/a1/approve")).status).toBe(200);
    await new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store: new MemoryPositionStore(), types: [...HANDLED_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await w?.drop();
  });

  it("grants the physical columns, masks by physical name, and the plan the server shows names them too", async () => {
    expect((await t.api("GET", "/api/access/a1")).body.provisioning.status).toBe("provisioned");
    expect(await w.readAs(login, "SELECT cust_id AS v FROM shop.tbl_customers")).toBe(1);
    expect(await w.readAs(login, "SELECT ssn AS v FROM shop.tbl_customers")).toEqual({ refused: "42501" });
    expect(await w.readAs(login, "SELECT cust_email AS v FROM shop.tbl_customers")).toEqual({ refused: "42501" });
    expect(await w.readAs(login, `SELECT cust_email AS v FROM masks.${q(maskViewName(role, "shop", "tbl_customers"))}`)).toBe("****");
    const plan = (await t.api("GET", "/api/access/a1/privileges")).body;
    expect(plan.objects.map((o: { table: string; columns: Array<{ name: string; decision: string }> }) => [o.table, o.columns.map((c) => `${c.name}:${c.decision}`)])).toEqual([
      ["tbl_customers", ["cust_id:granted", "cust_email:masked", "ssn:withheld"]],
    ]);
    expect(await connector.reconcile(new StewardClient({ baseUrl: t.url, apiKey: t.key }), new AbortController().signal)).toEqual([]);
  });
});
