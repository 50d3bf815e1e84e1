import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_KINDS, isOutputPortKind, isProvisioningKind } from "../src/events/kinds.js";
import { DATABASES } from "./helpers/databases.js";
import { request, startTestServer, type TestServer } from "./helpers/server.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(DATABASES)("every event kind's envelope (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, { appUrl: "https://steward.example.org", eventTypePrefix: "org.example.events" });
  });
  afterAll(() => t?.close());

  /** Drives every kind of change once, as a client would. */
  async function everyChange() {
    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await t.api(method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
      return res.body;
    };
    await ok("PUT", "/api/teams/sales", { name: "Sales" });
    await ok("PUT", "/api/teams/ops", { name: "Ops" });
    await ok("PUT", "/api/teams/ops", { name: "Operations" });
    await ok("DELETE", "/api/teams/ops");
    await ok("PUT", "/api/teams/marketing", { name: "Marketing" });

    const contract = { info: { title: "Orders", version: "1", owner: "sales" }, schema: { type: "custom", specification: "x" } };
    await ok("PUT", "/api/datacontracts/c", contract);
    await ok("PUT", "/api/datacontracts/c", { ...contract, info: { ...contract.info, version: "2" } });
    await ok("DELETE", "/api/datacontracts/c");

    const product = { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg" }, { id: "old" }] };
    await ok("PUT", "/api/dataproducts/orders", product);
    await ok("PUT", "/api/dataproducts/orders", { ...product, outputPorts: [{ id: "pg", description: "changed" }] });

    const access = (id: string) => ({ info: { purpose: "p" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "marketing" }, id });
    await ok("PUT", "/api/access/a1", access("a1"));
    await ok("POST", "/api/access/a1/approve");
    await ok("PUT", "/api/access/a1", { ...access("a1"), tags: ["changed"] });
    for (const transition of ["provisioning-started", "provisioning-succeeded", "provisioning-failed", "deprovisioning-started", "deprovisioning-succeeded", "deprovisioning-failed"]) {
      await ok("POST", `/api/access/a1/provisioning/${transition}`, {});
    }
    await ok("POST", "/api/access/a1/cancel");
    await ok("PUT", "/api/access/a2", access("a2"));
    await ok("POST", "/api/access/a2/reject");
    await ok("DELETE", "/api/access/a2");
    await ok("DELETE", "/api/access/a1");
    await ok("DELETE", "/api/dataproducts/orders");

    // The reference product's other resources, each created, changed and deleted once.
    const others: Array<[string, Record<string, unknown>]> = [
      ["/api/assets/orders-table", { info: { name: "orders", owner: "sales" } }],
      ["/api/sourcesystems/shop", { name: "Shop", owner: "sales" }],
      ["/api/definitions/order_id", { owner: "sales", type: "string" }],
      ["/api/tags/Governance/PII", { owner: "sales" }],
      ["/api/policies/GLOBAL-1", { name: "Quality" }],
      ["/api/classification-schemes/classification", { name: "Classification" }],
      ["/api/certifications/gold", { name: "Gold", tag: "gold" }],
    ];
    for (const [path, body] of others) {
      await ok("PUT", path, body);
      await ok("PUT", path, { ...body, description: "changed" });
      await ok("DELETE", path);
    }
    // An access held for approvals by a policy: each approval is recorded before the access is approved.
    await ok("PUT", "/api/dataproducts/held", { info: { title: "Held", owner: "sales" }, outputPorts: [{ id: "pg" }] });
    await ok("PUT", "/api/policies/held", { name: "Held", status: "Accepted", rule: { condition: "access.id == 'a3'", effect: "require-approvals", gates: ["access.request"], approvals: { count: 1 } } });
    await ok("PUT", "/api/access/a3", { info: { purpose: "p", startDate: "2999-01-01" }, provider: { dataProductId: "held", outputPortId: "pg" }, consumer: { teamId: "marketing" } });
    await ok("POST", "/api/access/a3/approve");
    // An activation at the start date that a policy at access.activate refuses.
    await ok("PUT", "/api/policies/refuse", { name: "Refuse", status: "Accepted", rule: { condition: "access.id == 'a4'", effect: "deny", gates: ["access.activate"] } });
    const start = Date.now() + 2000;
    await ok("PUT", "/api/access/a4", { info: { purpose: "p", startDate: new Date(start).toISOString() }, provider: { dataProductId: "held", outputPortId: "pg" }, consumer: { teamId: "marketing" } });
    await ok("POST", "/api/access/a4/approve");
    await new Promise((r) => setTimeout(r, Math.max(0, start - Date.now() + 10)));
    await t.server.scheduler.tick();
    await ok("PUT", "/api/datacontracts/c", contract);
    const run = await ok("POST", "/api/test-results", { dataContractId: "c", result: "passed", server: "production" });
    await ok("DELETE", `/api/test-results/${run.id}`);
    // A pipeline of marketing's product reading the held product's port without an access (docs/lineage.md).
    await ok("PUT", "/api/dataproducts/held", { info: { title: "Held", owner: "sales" }, outputPorts: [{ id: "pg", type: "postgres", server: { host: "db", database: "shop", schema: "public" } }] });
    await ok("PUT", "/api/dataproducts/campaigns", { info: { title: "Campaigns", owner: "marketing" } });
    const read = { eventType: "COMPLETE", eventTime: "2026-06-01T00:00:00Z", producer: "https://example.com/etl", run: { runId: "0190a3c4-1f2e-7d00-8000-000000000001" }, job: { namespace: "etl", name: "campaigns" }, inputs: [{ namespace: "postgres://db:5432", name: "shop.public.orders" }] };
    await ok("POST", "/api/v1/lineage?dataProductId=campaigns", read);
    // A breaking change proposed to the consumers of an approved access, not stored (docs/versions.md).
    const dbt = (columns: string[]) => ({ info: { title: "Proposed", version: "1", owner: "sales" }, schema: { type: "dbt", specification: `version: 2\nmodels:\n  - name: t\n    columns:\n${columns.map((c) => `      - name: ${c}\n`).join("")}` } });
    await ok("PUT", "/api/datacontracts/proposed", dbt(["a", "b"]));
    await ok("PUT", "/api/dataproducts/proposing", { info: { title: "Proposing", owner: "sales" }, outputPorts: [{ id: "pg", dataContractId: "proposed" }] });
    await ok("PUT", "/api/access/a5", { info: { purpose: "p" }, provider: { dataProductId: "proposing", outputPortId: "pg" }, consumer: { teamId: "marketing" } });
    await ok("POST", "/api/access/a5/approve");
    await ok("POST", "/api/datacontracts/proposed/changes?notify=true", dbt(["a"]));
  }

  it("covers all kinds, each envelope exactly as specified", async () => {
    await everyChange();
    const events: any[] = (await t.api("GET", "/api/events")).body;
    const kinds = new Set(events.map((e) => e.type.replace("org.example.events.", "")));
    expect([...kinds].sort()).toEqual([...EVENT_KINDS].sort());

    const components = (await request(t.url, "GET", "/api/openapi.json")).body.components.schemas;
    const ids = new Set<string>();
    for (const event of events) {
      const eventKind = event.type.split(".").pop();
      expect(Object.keys(event).sort()).toEqual(["data", "datacontenttype", "dataschema", "id", "principal", "source", "specversion", "subject", "time", "type"]);
      expect(event).toMatchObject({
        specversion: "1.0",
        id: expect.stringMatching(UUID),
        type: `org.example.events.${eventKind}`,
        source: "https://steward.example.org",
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        subject: event.data.id,
        datacontenttype: "application/json",
        dataschema: `https://steward.example.org/api/openapi.yaml#/components/schemas/${eventKind}`,
        // Changes made with the test's organization key name it; the scheduler names itself.
        principal: expect.stringMatching(/^(api-key:[0-9a-f-]{36}|system)$/),
      });
      expect(components[eventKind], eventKind).toBeDefined();
      const expectedKeys = ["id", "timestamp", ...(isOutputPortKind(eventKind) ? ["outputPortId"] : []), ...(isProvisioningKind(eventKind) || eventKind === "TestResultsCreatedEvent" ? ["status"] : []),
        ...(eventKind === "DataContractUpdatedEvent" ? ["breaking"] : []),
        ...(eventKind === "AccessApprovalRecordedEvent" ? ["approvals"] : []),
        ...(eventKind === "DataContractChangeProposedEvent" ? ["proposal"] : []),
        ...(eventKind === "AccessViolationDetectedEvent" ? ["outputPortId", "violation"] : []),
        // The verdicts of the policies that held, warned or denied, where the kind carries them.
        ...(event.data.verdicts !== undefined && components[eventKind].properties.verdicts !== undefined ? ["verdicts"] : []),
      ];
      // The payload members match the kind's published component schema.
      expect(Object.keys(components[eventKind].properties).sort(), eventKind).toEqual(expect.arrayContaining(expectedKeys));
      expect(Object.keys(event.data).sort(), eventKind).toEqual(expectedKeys.sort());
      expect(event.data.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/);
      expect(event.data.timestamp.slice(0, 23)).toBe(event.time.slice(0, 23));
      expect(ids.has(event.id)).toBe(false);
      ids.add(event.id);
    }
  });
});
