import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore } from "../../src/consumer/index.js";
import { HANDLED_KINDS, PostgresAccessConnector } from "../../src/connectors/postgres/connector.js";
import { maskViewName } from "../../src/connectors/postgres/grants.js";
import { roleFor } from "../../src/connectors/postgres/trust.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ADMIN_DATABASE, pgConnection, pgReadAs, pgTestConfig } from "./support.js";

/**
 * Column-level least privilege, checked the way a consumer meets it: a real login, member of the
 * team's role, reads each column of the table (or its masking view) and is answered, refused
 * (42501) or shown the mask, for every (roles × port) case of the table below.
 */

const suffix = randomBytes(3).toString("hex");
const warehouseDb = `cols_${suffix}`;
const owner = `owner${suffix}`;
const maskSchema = `masks_${suffix}`;

const config = pgTestConfig(warehouseDb, owner, maskSchema);

const COLUMNS = ["id", "name", "email", "salary", "ssn", "note"] as const;
const ROW = { id: 1, name: "Ada", email: "ada@example.org", salary: "5000", ssn: "123-45-6789", note: "hello" };
/** What a masked column reads: text as `****`, anything else as null. */
const MASKED = { email: "****", salary: null, ssn: "****" } as Record<string, unknown>;

const contract = (classes: Record<string, string | undefined>) => ({
  apiVersion: "v3.1.0",
  kind: "DataContract",
  id: "people",
  version: "1.0.0",
  status: "active",
  team: { name: owner },
  roles: [
    { role: "reader", access: "read", customProperties: [{ property: "maxClassification", value: "public" }] },
    { role: "analyst", access: "read", customProperties: [{ property: "maxClassification", value: "internal" }, { property: "maskClassification", value: "confidential" }] },
    { role: "auditor", access: "read", customProperties: [{ property: "maxClassification", value: "confidential" }, { property: "maskClassification", value: "restricted" }] },
    { role: "open", access: "read" },
  ],
  schema: [
    {
      name: "people",
      physicalType: "table",
      properties: COLUMNS.map((name) => ({ name, logicalType: name === "id" ? "integer" : "string", ...(classes[name] ? { classification: classes[name] } : {}) })),
    },
  ],
});
const CLASSES = { id: "public", name: "internal", email: "confidential", salary: "confidential", ssn: "restricted", note: undefined };

const PORTS = {
  plain: [],
  "internal-cap": [{ property: "maxClassification", value: "internal" }],
  "confidential-cap": [
    { property: "maxClassification", value: "confidential" },
    { property: "maskClassification", value: "restricted" },
  ],
} as const;

/** Per case, the decision for id, name, email, salary, ssn, note: g(ranted), m(asked), w(ithheld). */
const CASES: Array<[keyof typeof PORTS, string[], string]> = [
  ["plain", [], "gggggg"],
  ["plain", ["reader"], "gwwwwg"],
  ["plain", ["analyst"], "ggmmwg"],
  ["plain", ["auditor"], "ggggmg"],
  ["plain", ["open"], "gggggg"],
  ["plain", ["analyst", "auditor"], "ggggmg"],
  ["plain", ["nobody"], "wwwwww"],
  ["internal-cap", [], "ggwwwg"],
  ["internal-cap", ["reader"], "gwwwwg"],
  ["internal-cap", ["analyst"], "ggwwwg"],
  ["internal-cap", ["auditor"], "ggwwwg"],
  ["internal-cap", ["open"], "ggwwwg"],
  ["internal-cap", ["analyst", "auditor"], "ggwwwg"],
  ["internal-cap", ["nobody"], "wwwwww"],
  ["confidential-cap", [], "ggggmg"],
  ["confidential-cap", ["reader"], "gwwwwg"],
  ["confidential-cap", ["analyst"], "ggmmwg"],
  ["confidential-cap", ["auditor"], "ggggmg"],
  ["confidential-cap", ["open"], "ggggmg"],
  ["confidential-cap", ["analyst", "auditor"], "ggggmg"],
  ["confidential-cap", ["nobody"], "wwwwww"],
];

const team = (i: number) => `c${i}${suffix}`;
const login = (i: number) => `login_${i}_${suffix}`;

describe("PostgreSQL column-level grants from the privileges plan", () => {
  let t: TestServer;
  let admin: pg.Client;
  let warehouse: pg.Client;
  const connector = new PostgresAccessConnector(config);
  const store = new MemoryPositionStore();
  const runConnector = () => new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store, types: [...HANDLED_KINDS], handler: connector.handle, stopWhenCaughtUp: true }).run();

  /** Reads one column as the case's login: its value, or the SQLSTATE of the refusal. */
  const readAs = (i: number, sql: string): Promise<unknown> => pgReadAs(warehouseDb, login(i), sql);

  beforeAll(async () => {
    admin = new pg.Client(pgConnection(ADMIN_DATABASE));
    await admin.connect();
    await admin.query(`CREATE DATABASE ${warehouseDb}`);
    warehouse = new pg.Client(pgConnection(warehouseDb));
    await warehouse.connect();
    await warehouse.query("CREATE SCHEMA shop");
    await warehouse.query("CREATE TABLE shop.people (id int, name text, email varchar(100), salary numeric, ssn text, note text)");
    await warehouse.query("INSERT INTO shop.people VALUES ($1, $2, $3, $4, $5, $6)", Object.values(ROW));
    for (let i = 0; i < CASES.length; i++) {
      // The team's role exists beforehand here, so the login can be its member even where nothing is granted.
      await admin.query(`CREATE ROLE ${pg.escapeIdentifier(roleFor({ team: team(i) }))} NOLOGIN`);
      await admin.query(`CREATE ROLE ${login(i)} LOGIN IN ROLE ${pg.escapeIdentifier(roleFor({ team: team(i) }))}`);
    }

    t = await startTestServer("sqlite");
    expect((await t.api("PUT", `/api/teams/${owner}`, { name: owner })).status).toBe(200);
    expect((await t.api("PUT", "/api/datacontracts/people", contract(CLASSES))).status).toBe(200);
    const outputPorts = Object.entries(PORTS).map(([id, customProperties]) => ({
      id,
      type: "postgres",
      dataContractId: "people",
      server: { host: "warehouse", schema: "shop", table: "people" },
      customProperties,
    }));
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
    await warehouse?.end();
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${warehouseDb} WITH (FORCE)`);
      const roles = await admin.query<{ rolname: string }>("SELECT rolname FROM pg_roles WHERE rolname LIKE $1 ORDER BY rolname LIKE 'login%' DESC", [`%${suffix}%`]);
      for (const { rolname } of roles.rows) await admin.query(`DROP ROLE ${pg.escapeIdentifier(rolname)}`);
      await admin.end();
    }
  });

  it.each(CASES.map(([port, roles, expected], i) => [i, port, roles.join("+") || "no roles", expected] as const))(
    "case %i: port %s, %s → %s",
    async (i, _port, _roles, expected) => {
      const view = `${pg.escapeIdentifier(maskSchema)}.${pg.escapeIdentifier(maskViewName(roleFor({ team: team(i) }), "shop", "people"))}`;
      const viewExists = (await warehouse.query("SELECT to_regclass($1) IS NOT NULL AS ok", [view])).rows[0].ok as boolean;
      expect(viewExists).toBe(expected.includes("m"));
      for (const [k, column] of COLUMNS.entries()) {
        const fromTable = await readAs(i, `SELECT ${column}::text AS v FROM shop.people`);
        const decision = expected[k];
        if (decision === "g") expect(fromTable, column).toBe(String(ROW[column]));
        else expect(fromTable, column).toEqual({ refused: "42501" });
        if (decision === "m") expect(await readAs(i, `SELECT ${column} AS v FROM ${view}`), column).toBe(MASKED[column]);
        if (decision === "w" && viewExists) expect(await readAs(i, `SELECT ${column} AS v FROM ${view}`), column).toMatchObject({ refused: expect.any(String) });
      }
      const provisioning = (await t.api("GET", `/api/access/case-${i}`)).body.provisioning;
      expect(provisioning.status).toBe(expected === "wwwwww" ? "provisioning-failed" : "provisioned");
    },
  );

  it("names the columns in the report when it grants some of them, and the plan the server shows says the same", async () => {
    const i = CASES.findIndex(([port, roles]) => port === "plain" && roles.join() === "analyst");
    const provisioning = (await t.api("GET", `/api/access/case-${i}`)).body.provisioning;
    expect(provisioning.reference).toContain(`GRANT SELECT ("id", "name", "note") ON "shop"."people"`);
    const plan = (await t.api("GET", `/api/access/case-${i}/privileges`)).body;
    expect(plan.objects[0].columns.map((c: { decision: string }) => c.decision[0]).join("")).toBe("ggmmwg");
  });
});
