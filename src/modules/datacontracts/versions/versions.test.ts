import { beforeAll, describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { DATABASES } from "../../../../test/helpers/databases.js";
import { suiteServer } from "../../../../test/helpers/suite-server.js";

/** A DCS 0.9 contract of team sales whose dbt model has the given columns. */
const contract = (version: string, columns: string) => ({
  dataContractSpecification: "0.9.3",
  info: { title: "Orders", version, owner: "sales" },
  schema: { type: "dbt", specification: `version: 2\nmodels:\n  - name: orders\n    columns:\n${columns}` },
});
const ID = "      - name: order_id\n        data_type: text\n        tests: [not_null]\n";
const AMOUNT = "      - name: amount\n        data_type: numeric(12,2)\n";
const NOTE = "      - name: note\n        data_type: text\n";

describe.each(DATABASES)("contract versions and the breaking-change gate (%s)", (kind) => {
  const keys: Record<string, string> = {};

  const t = suiteServer(kind, {
    setup: async (t) => {
      for (const team of ["sales", "marketing"]) {
        await t.api("PUT", `/api/teams/${team}`, { name: team });
        keys[team] = (await t.api("POST", "/api/api-keys", { displayName: `${team} key`, scope: "team", teamId: team })).body.key;
      }
    },
  });

  const updates = async (id: string) =>
    ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.subject === id && e.type.endsWith("DataContractUpdatedEvent")).map((e) => e.data.breaking);

  it("keeps every stored document as a numbered version, newest first, with who stored it", async () => {
    expect((await t.api("PUT", "/api/datacontracts/history", contract("1.0.0", ID + AMOUNT), { key: keys.sales })).status).toBe(200);
    expect((await t.api("PUT", "/api/datacontracts/history", contract("1.1.0", ID + AMOUNT + NOTE))).status).toBe(200);
    // The same document again changes nothing and stores no version.
    expect((await t.api("PUT", "/api/datacontracts/history", contract("1.1.0", ID + AMOUNT + NOTE))).status).toBe(200);
    expect((await t.api("PUT", "/api/datacontracts/history", contract("2.0.0", ID + NOTE))).status).toBe(200);

    const list = await t.api("GET", "/api/datacontracts/history/versions");
    expect(list.status).toBe(200);
    expect(list.body.map((v: any) => [v.n, v.version])).toEqual([[3, "2.0.0"], [2, "1.1.0"], [1, "1.0.0"]]);
    expect(list.body[2]).toMatchObject({ principal: expect.stringMatching(/^api-key:/), principalName: "sales key" });
    expect(list.body[0].createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const first = await t.api("GET", "/api/datacontracts/history/versions/1");
    expect(first.status).toBe(200);
    // The document as it was stored, member for member: it can be PUT back as it is.
    expect(first.text).toBe(JSON.stringify({ ...contract("1.0.0", ID + AMOUNT), id: "history" }));
    expect((await t.api("GET", "/api/datacontracts/history/versions/9")).status).toBe(404);
    expect((await t.api("GET", "/api/datacontracts/history/versions/0")).status).toBe(400);
    expect((await t.api("GET", "/api/datacontracts/nope/versions")).status).toBe(404);
  });

  it("compares any two versions, and a proposed document without storing it", async () => {
    const changes = await t.api("GET", "/api/datacontracts/history/changes?from=1&to=3");
    expect(changes.status).toBe(200);
    expect(changes.body).toMatchObject({ from: 1, to: 3, breaking: true, affectedAccesses: [] });
    expect(changes.body.changes.map((c: any) => `${c.change} ${c.path} ${c.breaking}`).sort()).toEqual([
      "field-added-optional orders.note false",
      "field-removed orders.amount true",
    ]);
    // Default: the two newest.
    expect((await t.api("GET", "/api/datacontracts/history/changes")).body).toMatchObject({ from: 2, to: 3 });

    const proposed = await t.api("POST", "/api/datacontracts/history/changes", contract("2.1.0", ID + NOTE + AMOUNT));
    expect(proposed.status).toBe(200);
    expect(proposed.body).toMatchObject({ from: "current", to: "proposed", breaking: false, changes: [{ change: "field-added-optional", path: "orders.amount" }] });
    expect((await t.api("GET", "/api/datacontracts/history/versions")).body).toHaveLength(3);
    // A proposal may be YAML, as the document it proposes may be when stored.
    const yaml = await t.api("POST", "/api/datacontracts/history/changes", undefined, { contentType: "application/yaml", raw: toYaml(contract("2.1.0", ID + NOTE + AMOUNT)) });
    expect(yaml.status, yaml.text).toBe(200);
    expect(yaml.body).toEqual(proposed.body);

    const invalid = await t.api("POST", "/api/datacontracts/history/changes", { dataContractSpecification: "0.9.3", info: { title: "x" } });
    expect(invalid.status).toBe(422);
    // A proposal for another contract is refused, as a PUT of it to this path would be.
    const elsewhere = await t.api("POST", "/api/datacontracts/history/changes", { ...contract("2.1.0", ID + NOTE + AMOUNT), id: "another" });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.violations).toEqual([{ field: "id", message: "must equal 'history' or be absent" }]);
  });

  it("refuses a shortened retention or a removed server outside the models while an access is approved, and lists new terms as not breaking", async () => {
    const levels = { retention: { period: "P1Y" }, availability: { percentage: "99.9%" } };
    const servers = { prod: { type: "postgres", host: "db", port: 5432, database: "shop", schema: "public" } };
    const full = (version: string, extra: Record<string, unknown>) => ({ ...contract(version, ID + AMOUNT), ...extra });
    expect((await t.api("PUT", "/api/datacontracts/orders-sla", full("1.0.0", { servicelevels: levels, servers }), { key: keys.sales })).status).toBe(200);
    await t.api("PUT", "/api/dataproducts/orders-sla", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres", dataContractId: "orders-sla" }] });
    await t.api("PUT", "/api/access/marketing-sla", { info: { purpose: "Attribution" }, provider: { dataProductId: "orders-sla", outputPortId: "pg" }, consumer: { teamId: "marketing" } });
    expect((await t.api("POST", "/api/access/marketing-sla/approve")).status).toBe(200);

    const shorter = full("1.0.1", { servicelevels: { ...levels, retention: { period: "P30D" } }, servers: {}, terms: { usage: "Attribution only." } });
    const res = await t.api("PUT", "/api/datacontracts/orders-sla", shorter, { key: keys.sales });
    expect(res.status).toBe(409);
    expect(res.body.breakingChanges.map((c: { change: string; path: string }) => `${c.change} ${c.path}`)).toEqual(["server-removed servers.prod", "sla-weakened servicelevels.retention.period"]);
    expect(res.body.affectedAccesses).toEqual([{ id: "marketing-sla", consumerTeamId: "marketing", consumerDataProductId: null }]);
    expect((await t.api("GET", "/api/datacontracts/orders-sla/versions")).body).toHaveLength(1);
    const preview = await t.api("POST", "/api/datacontracts/orders-sla/changes", shorter);
    expect(preview.body.changes.map((c: { change: string; breaking: boolean }) => `${c.change} ${c.breaking}`)).toEqual(["server-removed true", "sla-weakened true", "terms-changed false"]);
    // A longer retention and new terms pass the gate.
    const longer = full("1.0.1", { servicelevels: { ...levels, retention: { period: "P2Y" } }, servers, terms: { usage: "Attribution only." } });
    expect((await t.api("PUT", "/api/datacontracts/orders-sla", longer, { key: keys.sales })).status).toBe(200);
    const stored = await t.api("GET", "/api/datacontracts/orders-sla/changes");
    expect(stored.body.changes.map((c: { change: string }) => c.change)).toEqual(["sla-strengthened", "terms-changed"]);
  });

  describe("with an approved access under the contract", () => {
    beforeAll(async () => {
      expect((await t.api("PUT", "/api/datacontracts/orders-v1", contract("1.0.0", ID + AMOUNT))).status).toBe(200);
      const product = await t.api("PUT", "/api/dataproducts/orders", {
        info: { title: "Orders", owner: "sales" },
        outputPorts: [{ id: "pg", type: "postgres", dataContractId: "orders-v1" }],
      });
      expect(product.status).toBe(200);
      const access = await t.api("PUT", "/api/access/marketing-orders", {
        info: { purpose: "Attribution" },
        provider: { dataProductId: "orders", outputPortId: "pg" },
        consumer: { teamId: "marketing" },
      });
      expect(access.status).toBe(200);
      expect((await t.api("POST", "/api/access/marketing-orders/approve")).status).toBe(200);
    });

    it("refuses a breaking change with the changes and the accesses it would break", async () => {
      const res = await t.api("PUT", "/api/datacontracts/orders-v1", contract("1.1.0", ID), { key: keys.sales });
      expect(res.status).toBe(409);
      expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
      expect(res.body.detail).toMatch(/breaking/);
      expect(res.body.breakingChanges).toEqual([expect.objectContaining({ change: "field-removed", path: "orders.amount", breaking: true, affectedAccesses: ["marketing-orders"] })]);
      expect(res.body.affectedAccesses).toEqual([{ id: "marketing-orders", consumerTeamId: "marketing", consumerDataProductId: null }]);
      // Nothing changed: no new version, no event, the old document stays.
      expect((await t.api("GET", "/api/datacontracts/orders-v1/versions")).body).toHaveLength(1);
      expect((await t.api("GET", "/api/datacontracts/orders-v1")).body.info.version).toBe("1.0.0");
      expect(await updates("orders-v1")).toEqual([]);

      // What the web app asks before saving: the same verdict, nothing stored.
      const preview = await t.api("POST", "/api/datacontracts/orders-v1/changes", contract("1.1.0", ID));
      expect(preview.body).toMatchObject({ breaking: true, affectedAccesses: [{ id: "marketing-orders" }] });
    });

    it("stores a non-breaking change and says so in the event", async () => {
      expect((await t.api("PUT", "/api/datacontracts/orders-v1", contract("1.1.0", ID + AMOUNT + NOTE), { key: keys.sales })).status).toBe(200);
      expect(await updates("orders-v1")).toEqual([false]);
    });

    it("refuses allowBreaking from a team key, accepts it from an organization key", async () => {
      const team = await t.api("PUT", "/api/datacontracts/orders-v1?allowBreaking=true", contract("1.2.0", ID + AMOUNT), { key: keys.sales });
      expect(team.status).toBe(403);
      expect(team.body.detail).toMatch(/allowBreaking/);
      const org = await t.api("PUT", "/api/datacontracts/orders-v1?allowBreaking=true", contract("1.2.0", ID + AMOUNT));
      expect(org.status).toBe(200);
      expect(await updates("orders-v1")).toEqual([false, true]);
      expect((await t.api("PUT", "/api/datacontracts/orders-v1?allowBreaking=maybe", contract("1.2.0", ID + AMOUNT))).status).toBe(400);
    });

    it("accepts a breaking change that raises the major version", async () => {
      const res = await t.api("PUT", "/api/datacontracts/orders-v1", contract("2.0.0", ID), { key: keys.sales });
      expect(res.status).toBe(200);
      expect(await updates("orders-v1")).toEqual([false, true, true]);
      expect((await t.api("GET", "/api/datacontracts/orders-v1/versions")).body.map((v: any) => v.version)).toEqual(["2.0.0", "1.2.0", "1.1.0", "1.0.0"]);
    });
  });

  it("forgets a deleted contract's versions: the same id starts again at 1", async () => {
    await t.api("PUT", "/api/datacontracts/short-lived", contract("1.0.0", ID));
    await t.api("PUT", "/api/datacontracts/short-lived", contract("1.1.0", ID + NOTE));
    expect((await t.api("DELETE", "/api/datacontracts/short-lived")).status).toBe(204);
    await t.api("PUT", "/api/datacontracts/short-lived", contract("1.0.0", ID));
    expect((await t.api("GET", "/api/datacontracts/short-lived/versions")).body.map((v: any) => v.n)).toEqual([1]);
  });

  it("sees a change inside an Avro type that several fields share, where the type is defined", async () => {
    const avro = (addressFields: object[]) => ({
      dataContractSpecification: "0.9.3",
      info: { title: "Customers", version: "1.0.0", owner: "sales" },
      schema: {
        type: "avro",
        specification: JSON.stringify({
          type: "record",
          name: "Customer",
          fields: [
            { name: "home", type: { type: "record", name: "Address", fields: addressFields } },
            { name: "work", type: "Address" },
            { name: "billing", type: "Address" },
          ],
        }),
      },
    });
    await t.api("PUT", "/api/datacontracts/shared-types", avro([{ name: "street", type: "string" }, { name: "city", type: "string" }]));
    await t.api("PUT", "/api/datacontracts/shared-types", avro([{ name: "street", type: "string" }]));
    const changes = (await t.api("GET", "/api/datacontracts/shared-types/changes")).body.changes;
    expect(changes.filter((c: any) => c.change === "field-removed").map((c: any) => c.path)).toContain("definitions.Address.city");
  });

  it("never shows another organization's versions", async () => {
    const other = await t.createOrganization("other");
    expect((await t.api("GET", "/api/datacontracts/history/versions", undefined, { key: other.key })).status).toBe(404);
    expect((await t.api("GET", "/api/datacontracts/history/changes", undefined, { key: other.key })).status).toBe(404);
  });
});
