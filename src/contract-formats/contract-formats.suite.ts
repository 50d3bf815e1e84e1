import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { fixture } from "../../test/helpers/fixtures.js";
import { contractFormatOf } from "./index.js";
import type { StandardsCheck } from "../../test/helpers/checks.js";

const ODCS = "odcs-json-schema-v3.1.0.json";
const load = (name: string) => parse(fixture(name)) as Record<string, unknown> & { id: string };

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function contractFormatTests(check: StandardsCheck): void {
  describe(`data contract formats${check.label}`, () => {
    it("detects each format by its marker member", () => {
      expect(contractFormatOf({ apiVersion: "v3.1.0", kind: "DataContract" }).name).toBe("odcs");
      expect(contractFormatOf({ dataContractSpecification: "1.1.0", models: {} }).name).toBe("dcs");
      expect(contractFormatOf({ dataContractSpecification: "0.9.3", info: {}, schema: {} }).name).toBe("dcs-0.9");
      expect(contractFormatOf({ info: {}, schema: {} }).name).toBe("dcs-0.9");
    });

    it("accepts a complete ODCS 3.1.0 contract that the official schema accepts too", () => {
      const doc = load("odcs-shipments.yaml");
      check.valid(ODCS, doc);
      const format = contractFormatOf(doc);
      expect(format.validate(doc)).toEqual([]);
      expect(format.facts(doc)).toMatchObject({ title: "Shipments", owner: "logistics", ownerField: "team.name", version: "2.1.0", status: "active" });
    });

    it("accepts ODCS 3.0.2 and reads its owner from a custom property, else from domain", () => {
      const doc = load("odcs-3.0-invoices.yaml");
      check.valid("odcs-json-schema-v3.0.2.json", doc);
      const format = contractFormatOf(doc);
      expect(format.validate(doc)).toEqual([]);
      expect(format.facts(doc)).toMatchObject({ owner: "logistics", ownerField: "domain" });
      const custom = { ...doc, customProperties: [{ property: "owner", value: "billing" }] };
      expect(format.facts(custom)).toMatchObject({ owner: "billing", ownerField: "customProperties[0].value" });
    });

    it("reports every ODCS violation with its path, as the official schema does", () => {
      const doc = {
        apiVersion: "v3.1.0",
        kind: "DataContract",
        id: "broken",
        version: "1.0.0",
        owner: "not an ODCS member",
        schema: [
          {
            name: "t",
            properties: [
              { name: "a", logicalType: "text" },
              { name: "b", logicalType: "string", logicalTypeOptions: { minLength: -1 } },
              { name: "c", logicalType: "string", properties: [{ name: "d" }] },
              { logicalType: "integer" },
            ],
            quality: [{ type: "sql", mustBe: 0 }, { type: "library", metric: "rowCount", mustBe: 1, mustNotBe: 2 }],
          },
        ],
        servers: [{ server: "p", type: "postgres", host: "h" }],
        team: { name: "x", lead: "someone" },
      };
      check.invalid(ODCS, doc);
      const fields = contractFormatOf(doc).validate(doc).map((v) => v.field);
      expect(fields).toEqual(
        expect.arrayContaining([
          "status",
          "owner",
          "schema[0].properties[0].logicalType",
          "schema[0].properties[1].logicalTypeOptions.minLength",
          "schema[0].properties[2].properties",
          "schema[0].properties[3].name",
          "schema[0].quality[0].query",
          "schema[0].quality[1]",
          "servers[0].port",
          "servers[0].database",
          "team.lead",
        ]),
      );
    });

    it("normalizes ODCS schema objects with nested properties, items, keys, classification and quality", () => {
      const doc = load("odcs-shipments.yaml");
      const [group] = contractFormatOf(doc).models(doc);
      const model = group!.models[0]!;
      expect(model).toMatchObject({ name: "shipments", kind: "table", description: "One row per shipment." });
      expect(model.quality!.map((q) => q.type)).toEqual(["sql", "library", "text", "custom"]);
      const [id, carrier, , recipient, scans] = model.fields;
      expect(id).toMatchObject({ name: "shipment_id", type: "string", physicalType: "uuid", required: true, primaryKey: true, unique: true, classification: "internal" });
      expect(carrier).toMatchObject({ maxLength: 32, quality: [{ type: "library", metric: "invalidValues", comparison: { operator: "mustBe", value: 0 } }] });
      expect(recipient!.fields![1]!.fields!.map((f) => [f.name, f.required])).toEqual([["postal_code", true], ["country", false]]);
      expect(recipient!.fields![0]).toMatchObject({ classification: "pii", pattern: "^.+@.+$" });
      expect(scans).toMatchObject({ type: "array", items: { type: "object", fields: [{ name: "scanned_at", type: "timestamp", required: true }, { name: "location" }] } });
    });

    it("converts ODCS 3.0 to a valid 3.1.0 document", () => {
      const doc = load("odcs-3.0-invoices.yaml");
      const odcs = contractFormatOf(doc).toOdcs(doc);
      expect(odcs.apiVersion).toBe("v3.1.0");
      check.valid(ODCS, odcs);
    });

    it("reads DCS 1.x models, with definitions, nested fields and quality, and converts them to valid ODCS", () => {
      const doc = load("dcs-1-orders.yaml");
      const format = contractFormatOf(doc);
      expect(format.name).toBe("dcs");
      expect(format.validate(doc)).toEqual([]);
      expect(format.facts(doc)).toMatchObject({ owner: "logistics", version: "1.4.0" });
      const model = format.models(doc)[0]!.models[0]!;
      expect(model.fields[0]).toMatchObject({ name: "order_id", type: "string", required: true, primaryKey: true, minLength: 36, description: "Identifier of an order." });
      expect(model.fields[1]).toMatchObject({ enum: ["placed", "shipped", "delivered"] });
      expect(model.fields[2]).toMatchObject({ type: "number", precision: 12, scale: 2 });
      expect(model.fields[4]).toMatchObject({ type: "array", items: { type: "object", fields: [{ name: "sku", maxLength: 20 }, { name: "quantity", type: "integer" }] } });
      const odcs = format.toOdcs(doc);
      check.valid(ODCS, odcs);
      expect(odcs).toMatchObject({ id: "orders-dcs", name: "Orders", version: "1.4.0", status: "active", team: { name: "logistics" } });
      expect((odcs.servers as unknown[]).length).toBe(2);
      // The staging server lacks the schema that an ODCS postgres server needs: it stays, as a custom server.
      expect((odcs.servers as Array<Record<string, unknown>>)[1]).toMatchObject({ server: "staging", type: "custom", host: "staging.acme.internal" });
    });

    it("keeps a DCS server location that is no URI (a `{model}` placeholder) in customProperties, so the ODCS is valid", () => {
      const location = "s3://example-orders/v2/{model}/*.json";
      const doc = {
        dataContractSpecification: "1.1.0", id: "orders-placeholder", info: { title: "Orders", version: "2.0.0", owner: "checkout" },
        servers: { production: { type: "s3", environment: "prod", location, format: "json", delimiter: "new_line" } },
        models: { orders: { type: "table", fields: { order_id: { type: "string", required: true } } } },
      };
      const odcs = contractFormatOf(doc).toOdcs(doc);
      const [server] = odcs.servers as Array<Record<string, unknown>>;
      expect(server).toMatchObject({ server: "production", environment: "prod" });
      expect(server!.location).toBeUndefined();
      expect(server!.customProperties).toEqual(expect.arrayContaining([{ property: "location", value: location }]));
      expect(contractFormatOf(odcs).validate(odcs)).toEqual([]);
      check.valid(ODCS, odcs);
    });

    it("converts every DCS 1.x quality rule to an ODCS 3.1.0 rule of the same meaning, or keeps it whole", () => {
      const rules = [
        { type: "library", metric: "freshness", mustBeLessThan: 5 },
        { type: "custom", engine: "gx", implementation: [{ expectation_type: "expect_column_to_exist" }] },
        { type: "text", description: "Weights are plausible.", dimension: "plausibility" },
        { type: "sql", query: "select count(*) from parcels", dialect: "postgres", mustBeGreaterThanOrEqualTo: 0 },
        { type: "sql", query: "select max(weight) from parcels", mustBeLessThanOrEqualTo: 100, mustBeGreaterThan: 0 },
        { type: "sql", query: "select 1" },
        { type: "library", metric: "duplicateCount", mustBe: 0 },
      ];
      const doc = {
        id: "rules", dataContractSpecification: "1.2.1", info: { title: "Rules", version: "1.0.0", owner: "logistics" },
        models: { parcels: { type: "table", quality: [{ type: "SodaCL", specification: { checks: ["row_count > 0"] } }], fields: { weight: { type: "number", quality: rules } } } },
      };
      check.valid("datacontract-specification-1.2.1.schema.json", { ...doc, models: { parcels: { ...doc.models.parcels, quality: [] } } });
      const odcs = contractFormatOf(doc).toOdcs(doc);
      check.valid(ODCS, odcs);
      const object = (odcs.schema as Array<Record<string, unknown>>)[0]!;
      expect(object.quality).toEqual([{ type: "custom", engine: "soda", implementation: { checks: ["row_count > 0"] } }]);
      const quality = (object.properties as Array<Record<string, unknown>>)[0]!.quality as Array<Record<string, unknown>>;
      expect(quality[0]).toMatchObject({ type: "text", customProperties: [{ property: "type", value: "library" }, { property: "metric", value: "freshness" }, { property: "mustBeLessThan", value: 5 }] });
      expect(quality[1]).toEqual({ type: "custom", engine: "gx", implementation: JSON.stringify(rules[1]!.implementation) });
      expect(quality[2]).toEqual({ type: "text", description: "Weights are plausible.", customProperties: [{ property: "dimension", value: "plausibility" }] });
      // >= stays >=, and the dialect stays with the rule.
      expect(quality[3]).toEqual({ type: "sql", query: "select count(*) from parcels", mustBeGreaterOrEqualTo: 0, customProperties: [{ property: "dialect", value: "postgres" }] });
      // Two comparisons are two rules, each holding one.
      expect(quality.slice(4, 6)).toEqual([
        { type: "sql", query: "select max(weight) from parcels", mustBeGreaterThan: 0 },
        { type: "sql", query: "select max(weight) from parcels", mustBeLessOrEqualTo: 100 },
      ]);
      // A query with no comparison states nothing ODCS can check: it is kept, as prose with its query.
      expect(quality[6]).toMatchObject({ type: "text", customProperties: expect.arrayContaining([{ property: "query", value: "select 1" }]) });
      expect(quality[7]).toEqual({ type: "library", metric: "duplicateValues", mustBe: 0 });
    });

    it("carries a DCS contract's info.domain to the ODCS domain, for both DCS versions, so the converted contract is in the same domain", () => {
      const dcs1 = { ...load("dcs-1-orders.yaml"), info: { ...load("dcs-1-orders.yaml").info as object, domain: "fulfilment" } };
      const dcs09 = { id: "legacy", dataContractSpecification: "0.9.3", info: { title: "Legacy", version: "1.0.0", owner: "logistics", domain: "fulfilment" }, schema: { type: "custom", specification: "x" } };
      for (const doc of [dcs1, dcs09]) {
        const format = contractFormatOf(doc);
        expect(format.facts(doc).domain).toBe("fulfilment");
        const odcs = format.toOdcs(doc as typeof doc & { id: string });
        check.valid(ODCS, odcs);
        expect(odcs.domain).toBe("fulfilment");
        expect(JSON.stringify(odcs.customProperties ?? [])).not.toContain("fulfilment");
        expect(contractFormatOf(odcs).facts(odcs as typeof odcs & { id: string })).toMatchObject({ domain: "fulfilment", owner: "logistics" });
      }
    });

    it("accepts what the official 3.1.0 schema leaves open or allows: a described authoritative definition, extra description members", () => {
      const doc = {
        apiVersion: "v3.1.0", kind: "DataContract", id: "described", version: "1.0.0", status: "active", domain: "logistics",
        description: { purpose: "p", audience: "analysts" },
        authoritativeDefinitions: [{ url: "https://wiki.example/parcels", type: "businessDefinition", description: "What a parcel is." }],
      };
      check.valid(ODCS, doc);
      expect(contractFormatOf(doc).validate(doc)).toEqual([]);
    });

    it("accepts a DCS 1.x contract with no models yet, as the official 1.2.1 schema does", () => {
      const doc = { id: "early", dataContractSpecification: "1.1.0", info: { title: "Early", version: "0.1.0", owner: "logistics" }, terms: { usage: "tbd" } };
      check.valid("datacontract-specification-1.2.1.schema.json", doc);
      const format = contractFormatOf(doc);
      expect(format.validate(doc)).toEqual([]);
      expect(format.models(doc)[0]!.models).toEqual([]);
      check.valid(ODCS, format.toOdcs(doc));
    });

    it("reports DCS 1.x structure problems with paths", () => {
      const doc = { id: "x", dataContractSpecification: "1.1.0", info: { title: "X" }, models: { m: { fields: { a: { type: 3, required: "yes" } } } } };
      expect(contractFormatOf(doc).validate(doc).map((v) => v.field)).toEqual(
        expect.arrayContaining(["info.version", "info.owner", "models.m.fields.a.type", "models.m.fields.a.required"]),
      );
    });
  });
}
