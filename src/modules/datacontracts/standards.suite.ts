import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { fixture } from "../../../test/helpers/fixtures.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

const ODCS = "odcs-json-schema-v3.1.0.json";
const ODCS_32 = "odcs-json-schema-v3.2.0.json";

const DBT = `version: 2
models:
  - name: parcels
    description: One row per parcel
    config: { materialized: incremental }
    columns:
      - name: parcel_id
        data_type: varchar
        tests: [not_null, unique]
      - name: status
        data_type: text
        tests:
          - accepted_values: { values: [open, closed] }
`;
const BIGQUERY = JSON.stringify({
  tableReference: { projectId: "acme", datasetId: "logistics", tableId: "scans" },
  type: "TABLE",
  schema: {
    fields: [
      { name: "scan_id", type: "STRING", mode: "REQUIRED" },
      { name: "at", type: "TIMESTAMP" },
      { name: "geo", type: "RECORD", fields: [{ name: "lat", type: "FLOAT64" }, { name: "lon", type: "FLOAT64" }] },
      { name: "tags", type: "STRING", mode: "REPEATED" },
    ],
  },
});
const JSONSCHEMA = JSON.stringify({
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "Carrier",
  type: "object",
  required: ["code"],
  properties: {
    code: { type: "string", maxLength: 8 },
    rating: { type: "number" },
    depots: { type: "array", items: { type: "object", properties: { city: { type: "string" } } } },
  },
});
const AVRO = JSON.stringify({
  type: "record",
  name: "ParcelScanned",
  fields: [
    { name: "parcelId", type: "string" },
    { name: "kind", type: { type: "enum", name: "Kind", symbols: ["IN", "OUT"] } },
    { name: "weight", type: ["null", "double"] },
    { name: "labels", type: { type: "map", values: "string" } },
  ],
});

const yamlHeaders = { contentType: "application/yaml" };

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function contractStandardTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`data contracts in the open standards (%s)${check.label}`, (kind) => {
    const t = suiteServer(kind, { teams: { logistics: "Logistics", billing: "Billing" } });

    it("stores an ODCS contract sent as YAML exactly as sent, and gives it back as JSON and as YAML", async () => {
      const text = fixture("odcs-shipments.yaml");
      const put = await t.api("PUT", "/api/datacontracts/shipments", undefined, { raw: text, ...yamlHeaders });
      expect(put.status).toBe(200);
      const sent = parse(text);
      expect(put.body).toEqual(sent);
      const got = await t.api("GET", "/api/datacontracts/shipments");
      expect(got.body).toEqual(sent);
      expect(Object.keys(got.body)).toEqual(Object.keys(sent));
      const asYaml = await t.api("GET", "/api/datacontracts/shipments/datacontract.yaml");
      expect(asYaml.headers.get("content-type")).toMatch(/^application\/yaml/);
      expect(parse(asYaml.text)).toEqual(sent);
      const listed = (await t.api("GET", "/api/datacontracts?teamId=logistics&q=shipments")).body;
      expect(listed.map((c: any) => c.id)).toEqual(["shipments"]);
    });

    it("stores the same ODCS contract sent as JSON, and serves its models and its ODCS form", async () => {
      const doc = { ...parse(fixture("odcs-shipments.yaml")), id: "shipments-json" };
      expect((await t.api("PUT", "/api/datacontracts/shipments-json", doc)).body).toEqual(doc);
      const models = (await t.api("GET", "/api/datacontracts/shipments-json/models")).body;
      expect(models.format).toBe("odcs");
      expect(models.models[0].fields[0]).toMatchObject({ name: "shipment_id", primaryKey: true, unique: true, classification: "internal" });
      const odcs = (await t.api("GET", "/api/datacontracts/shipments-json?format=odcs")).body;
      check.valid(ODCS, odcs);
      expect(odcs).toEqual(doc);
    });

    it("upgrades an ODCS 3.0 contract to 3.1.0 on ?format=odcs", async () => {
      const doc = parse(fixture("odcs-3.0-invoices.yaml"));
      expect((await t.api("PUT", "/api/datacontracts/invoices", doc)).status).toBe(200);
      const odcs = (await t.api("GET", "/api/datacontracts/invoices?format=odcs")).body;
      expect(odcs.apiVersion).toBe("v3.1.0");
      check.valid(ODCS, odcs);
    });

    it("accepts an ODCS v3.2.0 contract and gives its models with enum values, map key and value types and vector dimensions", async () => {
      const text = fixture("odcs-3.2-parcels.yaml");
      const sent = parse(text);
      check.valid(ODCS_32, sent);
      const put = await t.api("PUT", "/api/datacontracts/parcels-32", undefined, { raw: text, ...yamlHeaders });
      expect(put.status, put.text).toBe(200);
      expect((await t.api("GET", "/api/datacontracts/parcels-32")).body).toEqual(sent);
      const fields = (await t.api("GET", "/api/datacontracts/parcels-32/models")).body.models[0].fields;
      expect(fields[1]).toMatchObject({ name: "size", type: "string", enum: ["S", "M", "L"] });
      expect(fields[2]).toMatchObject({ name: "scans_per_depot", type: "map", key: { type: "string" }, items: { type: "integer" } });
      expect(fields[3]).toMatchObject({ name: "label_embedding", type: "vector", dimensions: 384 });
      const odcs = (await t.api("GET", "/api/datacontracts/parcels-32?format=odcs")).body;
      expect(odcs).toEqual(sent);
      check.valid(ODCS_32, odcs);
    });

    it("converts contracts of every format to ODCS v3.2.0 with odcsVersion=v3.2.0", async () => {
      const doc = { ...parse(fixture("odcs-shipments.yaml")), id: "shipments-32" };
      doc.schema[0].properties.push({ name: "note", physicalType: "text" });
      expect((await t.api("PUT", "/api/datacontracts/shipments-32", doc)).status).toBe(200);
      const odcs = (await t.api("GET", "/api/datacontracts/shipments-32?format=odcs&odcsVersion=v3.2.0")).body;
      expect(odcs.apiVersion).toBe("v3.2.0");
      expect(odcs.schema[0].properties.at(-1)).toEqual({ name: "note", physicalType: "text", logicalType: "string", customProperties: [{ property: "logicalTypeUnstated", value: true }] });
      check.valid(ODCS_32, odcs);
      const yaml = parse((await t.api("GET", "/api/datacontracts/shipments-32/datacontract.yaml?format=odcs&odcsVersion=v3.2.0")).text);
      expect(yaml).toEqual(odcs);
      const dcs = parse(fixture("dcs-1-orders.yaml"));
      expect((await t.api("PUT", "/api/datacontracts/orders-dcs-32", { ...dcs, id: "orders-dcs-32" })).status).toBe(200);
      const fromDcs = (await t.api("GET", "/api/datacontracts/orders-dcs-32?format=odcs&odcsVersion=v3.2.0")).body;
      expect(fromDcs.apiVersion).toBe("v3.2.0");
      check.valid(ODCS_32, fromDcs);
      expect((await t.api("GET", "/api/datacontracts/orders-dcs-32?format=odcs&odcsVersion=v9")).status).toBe(400);
    });

    it("holds an ODCS v3.2.0 contract to its edition's rules, and a v3.1.0 contract to 3.1.0's", async () => {
      const doc = parse(fixture("odcs-3.2-parcels.yaml"));
      doc.schema[0].properties[2] = { name: "scans_per_depot", logicalType: "map" };
      doc.schema[0].properties[3].logicalTypeOptions = { elementType: "float32" };
      const res = await t.api("PUT", "/api/datacontracts/parcels-32-bad", { ...doc, id: "parcels-32-bad" });
      check.invalid(ODCS_32, { ...doc, id: "parcels-32-bad" });
      expect(res.status).toBe(422);
      expect(res.body.violations).toEqual(
        expect.arrayContaining([
          { field: "schema[0].properties[2].map", message: expect.stringContaining("required") },
          { field: "schema[0].properties[3].logicalTypeOptions.dimensions", message: expect.stringContaining("required") },
        ]),
      );
      const older = { ...parse(fixture("odcs-3.2-parcels.yaml")), apiVersion: "v3.1.0", id: "parcels-31" };
      const refused = await t.api("PUT", "/api/datacontracts/parcels-31", older);
      check.invalid(ODCS, older);
      expect(refused.status).toBe(422);
      expect(refused.body.violations.map((v: any) => v.field)).toEqual(expect.arrayContaining(["context", "servers[0].port", "schema[0].synonyms"]));
      expect((await t.api("GET", "/api/datacontracts/parcels-31")).status).toBe(404);
    });

    it("reports ODCS violations of a YAML body with their path, line and column", async () => {
      const text = [
        "apiVersion: v3.1.0", //             1
        "kind: DataContract", //             2
        "id: bad-odcs", //                    3
        "version: 1.0.0", //                  4
        "status: active", //                  5
        "team:", //                           6
        "  name: logistics", //               7
        "schema:", //                         8
        "  - name: parcels", //               9
        "    properties:", //                 10
        "      - name: id", //                11
        "        logicalType: uuid", //       12
        "      - logicalType: string", //     13
        "        colour: blue", //            14
        "servers:", //                        15
        "  - server: db", //                  16
        "    type: postgres", //              17
        "    port: five", //                  18
      ].join("\n");
      const res = await t.api("PUT", "/api/datacontracts/bad-odcs", undefined, { raw: text, ...yamlHeaders });
      expect(res.status).toBe(422);
      const at = (field: string) => res.body.violations.find((v: any) => v.field === field);
      expect(at("schema[0].properties[0].logicalType")).toMatchObject({ line: 12, column: 22 });
      expect(at("schema[0].properties[1].name")).toMatchObject({ line: 13, column: 9 });
      expect(at("schema[0].properties[1].colour")).toMatchObject({ line: 14, column: 17 });
      expect(at("servers[0].port")).toMatchObject({ line: 18, column: 11 });
      expect(at("servers[0].host")).toMatchObject({ message: expect.stringContaining("required") });
      expect((await t.api("GET", "/api/datacontracts/bad-odcs")).status).toBe(404);
    });

    it("applies each format's owner rule: team.name, else a custom property owner, else domain", async () => {
      const base = { apiVersion: "v3.1.0", kind: "DataContract", version: "1.0.0", status: "draft" };
      const unknown = await t.api("PUT", "/api/datacontracts/o1", { ...base, team: { name: "nobody" } });
      expect(unknown.status).toBe(422);
      expect(unknown.body.violations).toEqual([{ field: "team.name", message: expect.stringContaining("nobody") }]);
      // Naming none, it is the organization's (ownerless.test.ts has the rest).
      const none = await t.api("PUT", "/api/datacontracts/o1", base);
      expect(none.status, none.text).toBe(200);
      expect((await t.api("DELETE", "/api/datacontracts/o1")).status).toBe(204);
      const custom = await t.api("PUT", "/api/datacontracts/o2", { ...base, customProperties: [{ property: "owner", value: "billing" }] });
      expect(custom.status).toBe(200);
      expect((await t.api("GET", "/api/datacontracts?teamId=billing")).body.map((c: any) => c.id)).toContain("o2");
      expect((await t.api("PUT", "/api/datacontracts/o3", { ...base, domain: "logistics" })).status).toBe(200);

      const billingKey = (await t.api("POST", "/api/api-keys", { displayName: "billing", scope: "team", teamId: "billing" })).body.key;
      const asBilling = (path: string, body: unknown) => t.api("PUT", path, body, { key: billingKey });
      expect((await asBilling("/api/datacontracts/o3", { ...base, domain: "logistics", name: "changed" })).status).toBe(403);
      expect((await asBilling("/api/datacontracts/o2", { ...base, customProperties: [{ property: "owner", value: "billing" }], name: "ok" })).status).toBe(200);
    });

    it("reads a DCS 1.x contract (YAML), normalizes its models and converts it to valid ODCS", async () => {
      const text = fixture("dcs-1-orders.yaml");
      const res = await t.api("PUT", "/api/datacontracts/orders-dcs", undefined, { raw: text, ...yamlHeaders });
      expect(res.status).toBe(200);
      expect((await t.api("GET", "/api/datacontracts/orders-dcs")).body).toEqual(parse(text));
      const models = (await t.api("GET", "/api/datacontracts/orders-dcs/models")).body;
      expect(models.format).toBe("dcs");
      expect(models.models[0].fields.map((f: any) => f.name)).toEqual(["order_id", "status", "total", "customer", "lines"]);
      const odcs = parse((await t.api("GET", "/api/datacontracts/orders-dcs/datacontract.yaml?format=odcs")).text);
      check.valid(ODCS, odcs);
      expect(odcs.schema[0].properties[0]).toMatchObject({ name: "order_id", logicalType: "string", primaryKey: true, required: true });
    });

    it.each([
      ["dbt", DBT],
      ["bigquery", BIGQUERY],
      ["jsonschema", JSONSCHEMA],
      ["avro", AVRO],
    ])("converts a DCS 0.9 contract with a %s schema to valid ODCS", async (type, specification) => {
      const id = `typed-${type}`;
      const contract = {
        dataContractSpecification: "0.9.3",
        info: { title: `Typed ${type}`, version: "1.0.0", owner: "logistics", status: "active", contact: { email: "x@acme.example" } },
        servers: { prod: { type: "bigquery", project: "acme", dataset: "logistics" } },
        terms: { usage: "Reporting", noticePeriod: "P1M" },
        schema: [{ type, specification }, { type: "custom", specification: "kept as text" }],
        links: { docs: "https://docs.acme.example" },
      };
      expect((await t.api("PUT", `/api/datacontracts/${id}`, contract)).status).toBe(200);
      const odcs = (await t.api("GET", `/api/datacontracts/${id}?format=odcs`)).body;
      check.valid(ODCS, odcs);
      expect(odcs).toMatchObject({ apiVersion: "v3.1.0", kind: "DataContract", id, name: `Typed ${type}`, version: "1.0.0", team: { name: "logistics" } });
      expect(odcs.schema.length).toBeGreaterThan(0);
      expect(odcs.customProperties).toEqual(expect.arrayContaining([{ property: "customSchema", value: "kept as text" }, { property: "links", value: contract.links }]));
      const yaml = parse((await t.api("GET", `/api/datacontracts/${id}/datacontract.yaml?format=odcs`)).text);
      expect(yaml).toEqual(odcs);
    });

    it("maps typed schemas to ODCS types, nested properties and items", async () => {
      const odcsOf = async (id: string) => (await t.api("GET", `/api/datacontracts/${id}?format=odcs`)).body.schema[0];
      const bq = await odcsOf("typed-bigquery");
      expect(bq.properties[0]).toMatchObject({ name: "scan_id", logicalType: "string", physicalType: "STRING", required: true });
      expect(bq.properties[2]).toMatchObject({ name: "geo", logicalType: "object", properties: [{ name: "lat", logicalType: "number" }, { name: "lon" }] });
      expect(bq.properties[3]).toMatchObject({ name: "tags", logicalType: "array", items: { logicalType: "string" } });
      const dbt = await odcsOf("typed-dbt");
      expect(dbt.properties[0]).toMatchObject({ name: "parcel_id", required: true, unique: true });
      expect(dbt.properties[1].quality).toEqual([{ type: "custom", engine: "dbt", implementation: "accepted_values" }]);
      const avro = await odcsOf("typed-avro");
      expect(avro.properties[1]).toMatchObject({ name: "kind", quality: [{ metric: "invalidValues", arguments: { validValues: ["IN", "OUT"] } }] });
    });

    it("keeps a DCS 0.9 contract round-tripping as YAML too", async () => {
      const text = `dataContractSpecification: 0.9.3\ninfo:\n  title: Parcels\n  version: 2.0.0\n  owner: logistics\nschema:\n  type: dbt\n  specification: |\n${DBT.split("\n").map((l) => `    ${l}`).join("\n")}\n`;
      expect((await t.api("PUT", "/api/datacontracts/parcels-yaml", undefined, { raw: text, ...yamlHeaders })).status).toBe(200);
      expect((await t.api("GET", "/api/datacontracts/parcels-yaml")).body).toEqual({ ...parse(text), id: "parcels-yaml" });
    });

    it("points at the line inside the YAML body for a violation of a DCS 0.9 body", async () => {
      const text = "dataContractSpecification: 0.9.3\ninfo:\n  title: Parcels\n  version: 2.0.0\n  owner: nobody\nschema:\n  type: protobuf\n  specification: x\n";
      const res = await t.api("PUT", "/api/datacontracts/p2", undefined, { raw: text, ...yamlHeaders });
      expect(res.status).toBe(422);
      expect(res.body.violations).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: "info.owner", line: 5, column: 10 }),
          expect.objectContaining({ field: "schema.type", line: 7, column: 9 }),
        ]),
      );
    });

    it("refuses malformed YAML with 400, YAML where only JSON is taken and other types with 415", async () => {
      const bad = await t.api("PUT", "/api/datacontracts/y", undefined, { raw: "a: [1, 2\nb: }", ...yamlHeaders });
      expect(bad.status).toBe(400);
      expect(bad.headers.get("content-type")).toMatch(/problem\+json/);
      const bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
      expect((await t.api("PUT", "/api/teams/bomb", undefined, { raw: bomb, ...yamlHeaders })).status).toBe(400);
      const team = await t.api("PUT", "/api/teams/yaml-team", undefined, { raw: "name: From YAML\ntags: [a]\n", contentType: "application/x-yaml" });
      expect(team.status).toBe(200);
      expect(team.body).toEqual({ id: "yaml-team", name: "From YAML", tags: ["a"] });
      const access = await t.api("POST", "/api/access", undefined, { raw: "info: {purpose: x}\n", contentType: "text/yaml" });
      expect(access.status).toBe(415);
      const plain = await t.api("PUT", "/api/datacontracts/y", undefined, { raw: "name: x", contentType: "text/plain" });
      expect(plain.status).toBe(415);
    });
  });
}
