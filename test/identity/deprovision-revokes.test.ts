import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import type { DatabaseKind } from "../helpers/databases.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";
import { createWarehouse, pgConnection, q, type Warehouse } from "../connectors/support.js";

/**
 * Deprovisioning through SCIM reaches the warehouse (docs/identity.md, "What SCIM changes";
 * docs/consumers.md, "Whose role" and "Memberships"): a person who consumes an access as a user
 * reads a table through their login while the access is active; the provider deactivates or
 * deletes them; Steward ends the access with its events; the real `steward connector postgres`
 * process revokes the grant, and the same login's next query is refused with 42501.
 */

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

describe.each<DatabaseKind>(["sqlite", "postgres"])("SCIM deprovisioning revokes in PostgreSQL (%s)", (kind) => {
  let t: TestServer;
  let w: Warehouse;
  let dir: string;
  let connectorKey: string;
  /** Two people, each with their own login in the warehouse, as the operator set them up. */
  const people = { fay: { email: "", login: "" }, gus: { email: "", login: "" } };

  const scim = (method: string, path: string, body?: unknown) =>
    request(t.url, method, `/api/scim/v2${path}`, body, { headers: { authorization: `Bearer ${t.key}` }, contentType: "application/scim+json" });
  /** One pass of the real connector process over what is on the feed, from where it stopped. */
  const runConnector = async () => {
    const res = await runCli(["connector", "postgres", "--url", t.url, "--config", join(dir, "connector.yaml"), "--position-file", join(dir, "position"), "--once"], {
      STEWARD_API_KEY: connectorKey,
    });
    expect(res.code, res.stderr).toBe(0);
  };
  const read = (login: string) => w.readAs(login, "SELECT count(*)::int AS v FROM shop.orders");
  const access = async (id: string) => (await t.api("GET", `/api/access/${id}`)).body;
  const kindsOf = async (id: string) =>
    ((await t.api("GET", "/api/events")).body as Array<{ type: string; subject: string }>).filter((e) => e.subject === id).map((e) => e.type.split(".").pop());

  beforeAll(async () => {
    w = await createWarehouse("deprov");
    const owner = `sales${w.suffix}`;
    for (const [name, person] of Object.entries(people)) {
      person.email = `${name}_${w.suffix}@example.com`;
      person.login = `${name}_${w.suffix}`;
      await w.admin.query(`CREATE ROLE ${q(person.login)} LOGIN`);
    }
    await w.db.query("CREATE SCHEMA shop");
    await w.db.query("CREATE TABLE shop.orders (id int)");
    await w.db.query("INSERT INTO shop.orders VALUES (1), (2)");

    dir = mkdtempSync(join(tmpdir(), "steward-deprovision-"));
    const config = {
      servers: {
        warehouse: {
          connection: pgConnection(w.database),
          grantable: [{ team: owner, schema: "shop" }],
          // The user consumer's role of the connector's scheme is held by the person's own login.
          members: Object.values(people).map((p) => ({ user: p.email, login: p.login })),
        },
      },
      ledger: { server: "warehouse", schema: "ledger" },
      timeouts: { connectMs: 10_000, statementMs: 10_000, lockMs: 2_000 },
    };
    writeFileSync(join(dir, "connector.yaml"), stringify(config));
    writeFileSync(join(dir, "position"), "");

    t = await startTestServer(kind);
    connectorKey = (await t.api("POST", "/api/api-keys", { scope: "connector", displayName: "postgres connector" })).body.key;
    expect((await t.api("PUT", `/api/teams/${owner}`, { name: owner })).status).toBe(200);
    const outputPorts = [{ id: "orders", type: "postgres", autoApprove: true, server: { host: "warehouse", schema: "shop", table: "orders" } }];
    expect((await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner }, outputPorts })).status).toBe(200);
    for (const [name, person] of Object.entries(people)) {
      expect((await scim("POST", "/Users", { schemas: [USER], userName: person.email, active: true })).status).toBe(201);
      const body = { info: { purpose: "Reports" }, provider: { dataProductId: "orders", outputPortId: "orders" }, consumer: { userId: person.email } };
      expect((await t.api("PUT", `/api/access/${name}-orders`, body)).body.info).toMatchObject({ status: "approved", active: true });
    }
    await runConnector();
  }, 180_000);

  afterAll(async () => {
    await t?.close();
    await w?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the connector granted each person's access to their own login", async () => {
    for (const [name, person] of Object.entries(people)) {
      expect(await read(person.login)).toBe(2);
      expect((await access(`${name}-orders`)).provisioning).toMatchObject({ status: "provisioned", platform: "postgres" });
    }
  });

  it("PATCH active: false, as Okta sends it, ends the access with events and the connector revokes it: the login gets 42501", async () => {
    const id = (await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${people.fay.email}"`)}`)).body.Resources[0].id as string;
    const off = await scim("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await access("fay-orders")).info).toMatchObject({ active: false });
    expect(await kindsOf("fay-orders")).toEqual(expect.arrayContaining(["AccessCanceledEvent", "AccessDeactivatedEvent"]));
    // Until the connector acts, the warehouse still lets the login read: the revoke is its work.
    expect(await read(people.fay.login)).toBe(2);

    await runConnector();
    expect(await read(people.fay.login)).toEqual({ refused: "42501" });
    expect((await access("fay-orders")).provisioning).toMatchObject({ status: "deprovisioned" });
    // The other person's access is untouched.
    expect(await read(people.gus.login)).toBe(2);
  }, 120_000);

  it("DELETE of the user does the same", async () => {
    const id = (await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${people.gus.email}"`)}`)).body.Resources[0].id as string;
    expect((await scim("DELETE", `/Users/${id}`)).status).toBe(204);
    expect((await access("gus-orders")).info).toMatchObject({ active: false });
    expect(await kindsOf("gus-orders")).toEqual(expect.arrayContaining(["AccessCanceledEvent", "AccessDeactivatedEvent"]));

    await runConnector();
    expect(await read(people.gus.login)).toEqual({ refused: "42501" });
    expect((await access("gus-orders")).provisioning).toMatchObject({ status: "deprovisioned" });
  }, 120_000);

  it("a replayed feed grants nothing back to either login", async () => {
    writeFileSync(join(dir, "position"), "");
    await runConnector();
    for (const person of Object.values(people)) expect(await read(person.login)).toEqual({ refused: "42501" });
  }, 120_000);
});
