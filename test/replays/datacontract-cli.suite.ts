import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DATABASES } from "../helpers/databases.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";
import type { StandardsCheck } from "../helpers/checks.js";

/**
 * The Data Contract CLI against Steward, as its Entropy Data integration sends it (Python
 * `requests`, key in `x-api-key`, host from ENTROPY_DATA_HOST / DATAMESH_MANAGER_HOST):
 *
 * - `datacontract publish datacontract.yaml`: the YAML file loaded as is (dates kept as text)
 *   and PUT to /api/datacontracts/{id} with `json=`, i.e. Python's json.dumps (", " and ": "
 *   separators, non-ASCII escaped). Success is exactly 200; it then prints `location-html`.
 * - `datacontract test <url>`: a contract read from a URL is fetched with `accept: application/yaml`
 *   and the key.
 * - `datacontract test --publish <url>/api/test-results`: the run's `model_dump_json()` (pydantic:
 *   compact, every field present, unset ones as null) POSTed as `data=`. Success is exactly 200;
 *   it reads only `location-html` from the answer.
 */
const REQUESTS_HEADERS = { "user-agent": "python-requests/2.32.3", "accept-encoding": "gzip, deflate", accept: "*/*" };

/** Python's json.dumps with its defaults, as `requests` encodes `json=`. */
function pythonJsonDumps(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`)
      .join(", ")}}`;
  }
  if (typeof value === "string") return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return JSON.stringify(value);
}

const CONTRACT_YAML = `apiVersion: v3.1.0
kind: DataContract
id: orders-v1
name: Orders
version: 1.2.0
status: active
domain: sales
dataProduct: orders
tenant: acme
description:
  purpose: Orders placed in the web shop, one row per order, für Reporting und Abrechnung.
  usage: Join with customers on customer_id.
  limitations: Not suitable for real-time use; loaded hourly.
team:
  name: sales
  members:
    - username: alice@example.com
      role: owner
servers:
  - server: production
    type: bigquery
    project: acme-prod
    dataset: orders
  - server: development
    type: bigquery
    project: acme-dev
    dataset: orders
schema:
  - name: orders
    physicalName: orders
    physicalType: table
    description: All orders.
    properties:
      - name: order_id
        logicalType: string
        physicalType: STRING
        required: true
        primaryKey: true
        unique: true
        description: Order number.
      - name: customer_id
        logicalType: string
        physicalType: STRING
        required: true
        classification: internal
      - name: order_total
        logicalType: number
        physicalType: NUMERIC
        description: Total in EUR, including VAT.
        quality:
          - type: library
            metric: nullValues
            mustBe: 0
      - name: placed_at
        logicalType: timestamp
        physicalType: TIMESTAMP
        required: true
    quality:
      - id: orders_row_count
        type: library
        metric: rowCount
        mustBeGreaterThan: 1000
        tags:
          - completeness
slaProperties:
  - property: latency
    value: 1
    unit: h
  - property: retention
    value: 5
    unit: y
tags:
  - sales
  - orders
customProperties:
  - property: dataClassification
    value: internal
contractCreatedTs: 2025-11-03T09:30:00Z
`;

/** A run of `datacontract test --server production`, as pydantic serializes it. */
function run(runId: string, result: "failed" | "passed", start: string, end: string) {
  const check = (c: Record<string, unknown>) => ({
    id: null,
    key: null,
    category: null,
    type: null,
    name: null,
    model: null,
    field: null,
    qualityId: null,
    tags: null,
    engine: null,
    language: null,
    implementation: null,
    result: null,
    reason: null,
    diagnostics: null,
    failedSamples: null,
    ...c,
  });
  const nullsFailed = result === "failed";
  return {
    runId,
    datacontractCliVersion: "0.11.2",
    dataContractId: "orders-v1",
    dataContractVersion: "1.2.0",
    dataProductId: null,
    outputPortId: null,
    server: "production",
    filters: null,
    timestampStart: start,
    timestampEnd: end,
    result,
    checks: [
      check({ id: "orders__order_id__field_is_present", key: "orders__order_id__field_is_present", category: "schema", type: "field_is_present", name: "Check that field order_id is present", model: "orders", field: "order_id", engine: "ibis", result: "passed" }),
      check({ id: "orders__order_id__field_type", key: "orders__order_id__field_type", category: "schema", type: "field_type", name: "Check that field order_id has type STRING", model: "orders", field: "order_id", engine: "ibis", result: "passed" }),
      check({
        id: "orders__customer_id__field_required",
        key: "orders__customer_id__field_required",
        category: "schema",
        type: "field_required",
        name: "Check that field customer_id has no missing values",
        model: "orders",
        field: "customer_id",
        engine: "ibis",
        language: "sql",
        implementation: "SELECT COUNT(*) FROM `acme-prod.orders.orders` WHERE customer_id IS NULL",
        result: nullsFailed ? "failed" : "passed",
        reason: nullsFailed ? "Found 3 rows with missing values" : null,
        diagnostics: nullsFailed ? { failedRowsCount: 3, totalRowsCount: 48211 } : null,
      }),
      {
        ...check({
          id: "orders__quality_orders_row_count",
          key: "orders__quality_orders_row_count",
          category: "quality",
          type: "row_count",
          name: "Check that orders has more than 1000 rows",
          model: "orders",
          qualityId: "orders_row_count",
          tags: ["completeness"],
          engine: "ibis",
          result: "passed",
          diagnostics: { rowCount: 48211 },
        }),
        // the deprecated spelling the CLI still writes beside a set qualityId
        quality_id: "orders_row_count",
      },
      check({ id: "orders__order_total__quality_null_values", key: "orders__order_total__quality_null_values", category: "quality", type: "null_values", name: "Check that order_total has 0 null values", model: "orders", field: "order_total", engine: "ibis", result: "warning", reason: "Could not compute on a partitioned table without filter" }),
    ],
    logs: [
      { level: "INFO", message: "Running tests for data contract orders-v1 with server production", timestamp: start },
      { level: "INFO", message: "Connecting to BigQuery project acme-prod", timestamp: start },
      ...(nullsFailed ? [{ level: "ERROR", message: "orders.customer_id: Found 3 rows with missing values", timestamp: end }] : []),
      { level: "INFO", message: `Data contract orders-v1 test result: ${result}`, timestamp: end },
    ],
  };
}

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function dataContractCliReplay(check: StandardsCheck): void {
  describe.each(DATABASES)(`replay: the Data Contract CLI (%s)${check.label}`, (kind) => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(kind, { eventTypePrefix: "com.datamesh-manager.events" });
      expect((await t.api("PUT", "/api/teams/sales", { name: "Sales", type: "Team" })).status).toBe(200);
    });
    afterAll(() => t?.close());

    const contract = parse(CONTRACT_YAML) as Record<string, unknown>;
    const cli = (method: string, path: string, raw: string) =>
      request(t.url, method, path, undefined, { key: t.key, headers: REQUESTS_HEADERS, raw, contentType: "application/json" });

    it("publishes an ODCS contract: the YAML as JSON, answered with exactly 200 and location-html, read back member for member", async () => {
      expect(contract.contractCreatedTs).toBe("2025-11-03T09:30:00Z");
      const body = pythonJsonDumps(contract);
      expect(body).toContain("f\\u00fcr Reporting");
      const published = await cli("PUT", `/api/datacontracts/${contract.id}`, body);
      expect(published.status, published.text).toBe(200);
      expect(published.headers.get("location-html")).toBe("http://steward.test/datacontracts/orders-v1");

      const read = await t.api("GET", "/api/datacontracts/orders-v1");
      expect(read.body).toEqual(contract);
      check.answer("GET", "/api/datacontracts/{id}", 200, read.body);

      // Pipelines publish on every run: the same document again is the same 200.
      const again = await cli("PUT", `/api/datacontracts/${contract.id}`, body);
      expect(again.status).toBe(200);
    });

    it("serves the contract to `datacontract test <url>`, which asks for YAML", async () => {
      for (const path of ["/api/datacontracts/orders-v1/datacontract.yaml", "/api/datacontracts/orders-v1"]) {
        const fetched = await request(t.url, "GET", path, undefined, { key: t.key, headers: { ...REQUESTS_HEADERS, accept: "application/yaml" } });
        expect(fetched.status, `${path}: ${fetched.text}`).toBe(200);
        // The CLI hands the text to a YAML parser, which reads JSON too.
        expect(parse(fetched.text)).toEqual(contract);
      }
    });

    it("publishes test runs as `test --publish` sends them, and the contract's latest result shows the newest", async () => {
      const failedRun = run("5b0f3d54-7c1e-4b8e-9a55-3f0e6f2d1c01", "failed", "2026-03-02T08:15:03.123456Z", "2026-03-02T08:15:41.987654Z");
      const posted = await cli("POST", "/api/test-results", JSON.stringify(failedRun));
      expect(posted.status, posted.text).toBe(200);
      const location = posted.headers.get("location-html");
      expect(location).toBe(`http://steward.test/test-results/${failedRun.runId}`);

      const one = await t.api("GET", `/api/test-results/${failedRun.runId}`);
      expect(one.status).toBe(200);
      check.answer("GET", "/api/test-results/{id}", 200, one.body);
      expect(one.body).toMatchObject({ id: failedRun.runId, dataContractId: "orders-v1", dataContractVersion: "1.2.0", server: "production", result: "failed" });
      expect(one.body.checks).toHaveLength(5);
      expect(one.body.checks[2]).toEqual({
        id: "orders__customer_id__field_required",
        key: "orders__customer_id__field_required",
        category: "schema",
        type: "field_required",
        name: "Check that field customer_id has no missing values",
        model: "orders",
        field: "customer_id",
        engine: "ibis",
        language: "sql",
        implementation: "SELECT COUNT(*) FROM `acme-prod.orders.orders` WHERE customer_id IS NULL",
        result: "failed",
        reason: "Found 3 rows with missing values",
        diagnostics: { failedRowsCount: 3, totalRowsCount: 48211 },
      });
      expect(one.body.logs.map((l: { level: string }) => l.level)).toEqual(["INFO", "INFO", "ERROR", "INFO"]);

      // The next pipeline run passes.
      const passedRun = run("9d2c7a10-6b3f-4f0e-8e21-0c4b5a6d7e02", "passed", "2026-03-02T09:15:02.000001Z", "2026-03-02T09:15:39.500000Z");
      expect((await cli("POST", "/api/test-results", JSON.stringify(passedRun))).status).toBe(200);

      const list = await t.api("GET", "/api/test-results?dataContractId=orders-v1");
      check.answer("GET", "/api/test-results", 200, list.body);
      expect(list.body.map((r: { id: string }) => r.id)).toEqual([passedRun.runId, failedRun.runId]);

      const latest = await t.api("GET", "/api/datacontracts/orders-v1/test-results");
      expect(latest.status).toBe(200);
      expect(latest.body.dataContractId).toBe("orders-v1");
      expect(latest.body.latest).toMatchObject({ id: passedRun.runId, result: "passed", server: "production" });
      expect(latest.body.servers).toEqual([expect.objectContaining({ server: "production", id: passedRun.runId, result: "passed" })]);

      const events = (await t.api("GET", "/api/events")).body as Array<{ type: string; subject: string }>;
      expect(events.filter((e) => e.type === "com.datamesh-manager.events.TestResultsCreatedEvent").map((e) => e.subject)).toEqual([failedRun.runId, passedRun.runId]);
    });
  });
}
