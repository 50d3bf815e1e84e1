import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

const DBT = `version: 2
models:
  - name: orders
    description: One row per order
    config:
      materialized: table
    columns:
      - name: order_id
        data_type: text
        tests: [not_null, unique]
      - name: status
        data_type: varchar
        tests:
          - accepted_values:
              values: [placed, shipped]
`;

const AVRO_AS_JSONSCHEMA = JSON.stringify({
  type: "record",
  namespace: "com.example",
  name: "OrderPlaced",
  doc: "An order was placed",
  fields: [
    { name: "orderId", type: "string", doc: "id" },
    { name: "amount", type: ["null", "double"] },
  ],
});

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function dataContractTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`data contracts and schema validation (%s)${check.label}`, (kind) => {
    const t = suiteServer(kind, { teams: { sales: "Sales" } });

    const contract = (schema: unknown, extra: Record<string, unknown> = {}) => ({
      dataContractSpecification: "0.9.3",
      info: { title: "Orders", version: "1.0.0", owner: "sales", status: "active" },
      terms: { usage: "analytics", noticePeriod: "P3M" },
      schema,
      links: { catalog: "https://example.com" },
      custom: { reviewed: true },
      ...extra,
    });

    it("stores a contract with one schema and serves its normalized models", async () => {
      const body = contract({ type: "dbt", specification: DBT }, { servers: { prod: { type: "postgres" } }, quality: { type: "SodaCL" } });
      const res = await t.api("PUT", "/api/datacontracts/orders-v1", body);
      expect(res.status).toBe(200);
      expect(res.headers.get("location-html")).toBe("http://steward.test/datacontracts/orders-v1");
      expect((await t.api("GET", "/api/datacontracts/orders-v1")).body).toEqual({ id: "orders-v1", ...body });

      const models = (await t.api("GET", "/api/datacontracts/orders-v1/models")).body;
      expect(models.schemas).toEqual([{ type: "dbt", detectedType: "dbt", models: models.models }]);
      expect(models.models).toEqual([
        {
          name: "orders",
          description: "One row per order",
          kind: "table",
          fields: [
            { name: "order_id", type: "string", physicalType: "text", required: true, tests: ["not_null", "unique"] },
            { name: "status", type: "string", physicalType: "varchar", required: false, tests: ["accepted_values"] },
          ],
        },
      ]);
    });

    it("carries several schemas, and parses an Avro record sent as jsonschema as Avro", async () => {
      const body = contract([
        { type: "dbt", specification: DBT },
        { type: "jsonschema", specification: AVRO_AS_JSONSCHEMA },
        { type: "custom", specification: "anything at all: { not parsed" },
      ]);
      expect((await t.api("PUT", "/api/datacontracts/orders-multi", body)).status).toBe(200);
      const { schemas, models } = (await t.api("GET", "/api/datacontracts/orders-multi/models")).body;
      expect(schemas.map((s: any) => [s.type, s.detectedType])).toEqual([["dbt", "dbt"], ["jsonschema", "avro"], ["custom", "custom"]]);
      expect(models.map((m: any) => m.name)).toEqual(["orders", "OrderPlaced"]);
      expect(models[1].fields[1]).toMatchObject({ name: "amount", type: "number", required: false });
    });

    it("rejects an invalid schema with every violation, its path in the body, and line/column", async () => {
      const broken = "version: 2\nmodels:\n  - description: no name\n    columns:\n      - data_type: text\n";
      const res = await t.api("PUT", "/api/datacontracts/broken", contract([{ type: "custom", specification: "ok" }, { type: "dbt", specification: broken }]));
      expect(res.status).toBe(422);
      expect(res.body.violations).toEqual([
        { field: "schema[1].specification.models[0].name", message: expect.any(String), line: 3, column: 5 },
        { field: "schema[1].specification.models[0].columns[0].name", message: expect.any(String), line: 5, column: 9 },
      ]);
      expect((await t.api("GET", "/api/datacontracts/broken")).status).toBe(404);
      const feed = (await t.api("GET", "/api/events")).body.map((e: any) => e.subject);
      expect(feed).not.toContain("broken");
    });

    it("rejects an unknown schema type and a missing schema", async () => {
      const unknown = await t.api("PUT", "/api/datacontracts/x", contract({ type: "protobuf", specification: "message X {}" }));
      expect(unknown.status).toBe(422);
      expect(unknown.body.violations.map((v: any) => v.field)).toEqual(["schema.type"]);
      const { schema: _none, ...withoutSchema } = contract(null);
      const missing = await t.api("PUT", "/api/datacontracts/x", withoutSchema);
      expect(missing.status).toBe(422);
      expect(missing.body.violations.map((v: any) => v.field)).toContain("schema");
    });

    it("accepts json-schema as a spelling of jsonschema", async () => {
      const spec = JSON.stringify({ $schema: "http://json-schema.org/draft-07/schema#", title: "Customer", type: "object", properties: { id: { type: "string" } }, required: ["id"] });
      const res = await t.api("POST", "/api/schemas/validate", { type: "json-schema", specification: spec });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ type: "jsonschema", detectedType: "jsonschema", models: [{ name: "Customer", fields: [{ name: "id", required: true }] }] });
    });

    it("validates without storing and, with format=odcs, answers the ODCS schema objects", async () => {
      const spec = JSON.stringify({ type: "record", name: "Parcel", fields: [{ name: "weight", type: "int" }, { name: "note", type: ["null", "string"] }] });
      const res = await t.api("POST", "/api/schemas/validate?format=odcs", { type: "avro", specification: spec });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        type: "avro",
        detectedType: "avro",
        schema: [
          {
            name: "Parcel", logicalType: "object", physicalType: "record",
            properties: [{ name: "weight", logicalType: "integer", physicalType: "int", required: true }, { name: "note", logicalType: "string", physicalType: expect.any(String) }],
            customProperties: [{ property: "schemaType", value: "avro" }],
          },
        ],
      });
      check.valid("odcs-json-schema-v3.1.0.json", { apiVersion: "v3.1.0", kind: "DataContract", id: "x", version: "1", status: "draft", schema: res.body.schema });
      expect((await t.api("POST", "/api/schemas/validate?format=xml", { type: "avro", specification: spec })).status).toBe(400);
    });

    it("validates without storing: 200 with models or 422 with violations", async () => {
      const ok = await t.api("POST", "/api/schemas/validate", { type: "avro", specification: AVRO_AS_JSONSCHEMA });
      expect(ok.status).toBe(200);
      expect(ok.body.models[0]).toMatchObject({ name: "OrderPlaced", kind: "record" });
      const bad = await t.api("POST", "/api/schemas/validate", { type: "bigquery", specification: '{"tableReference": {"projectId": "p"}}' });
      expect(bad.status).toBe(422);
      expect(bad.body.violations.every((v: any) => v.field.startsWith("specification"))).toBe(true);
      expect(bad.body.violations[0]).toHaveProperty("line");
      const events = (await t.api("GET", "/api/events")).body.length;
      await t.api("POST", "/api/schemas/validate", { type: "dbt", specification: DBT });
      expect((await t.api("GET", "/api/events")).body.length).toBe(events);
    });

    it("emits created, updated and deleted events in order, and filters lists", async () => {
      const body = contract({ type: "custom", specification: "v1" });
      await t.api("PUT", "/api/datacontracts/lifecycle", body);
      await t.api("PUT", "/api/datacontracts/lifecycle", { ...body, info: { ...body.info, status: "deprecated" } });
      expect((await t.api("GET", "/api/datacontracts?status=deprecated")).body.map((c: any) => c.id)).toEqual(["lifecycle"]);
      expect((await t.api("GET", "/api/datacontracts?teamId=sales")).body.length).toBeGreaterThanOrEqual(3);
      expect((await t.api("DELETE", "/api/datacontracts/lifecycle")).status).toBe(204);
      const kinds = (await t.api("GET", "/api/events")).body.filter((e: any) => e.subject === "lifecycle").map((e: any) => e.type.split(".").pop());
      expect(kinds).toEqual(["DataContractCreatedEvent", "DataContractUpdatedEvent", "DataContractDeletedEvent"]);
    });
  });
}
