import { describe, expect, it } from "vitest";
import { change, odcsContract as contract, type Doc } from "../../test/helpers/edition-documents.js";
import { officialSchema } from "../../test/helpers/standards.js";
import { odcsFormat } from "./odcs.js";
import { liftTo32 } from "./odcs-lift.js";

/**
 * Steward's verdict on ODCS documents must be the official schema's, edition by edition: 3.0.x
 * documents by the 3.0.2 schema, 3.1.0 documents by the 3.1.0 schema, 3.2.0 ones by the 3.2.0 schema. Each case is one small
 * change to a valid contract, most of them on a line where the two editions disagree.
 */
const OFFICIAL: Record<string, string> = { "v3.0.2": "odcs-json-schema-v3.0.2.json", "v3.0.0": "odcs-json-schema-v3.0.2.json", "v3.1.0": "odcs-json-schema-v3.1.0.json",
  "v3.2.0": "odcs-json-schema-v3.2.0.json",
};

const P = "schema.0.properties.0";
const Q = "schema.0.quality";
const CASES: Array<[string, string, unknown]> = [
  ["nothing changed", "name", "Parcels"],
  ["a description on an authoritative definition", "authoritativeDefinitions", [{ url: "https://x.example", type: "businessDefinition", description: "d" }]],
  ["an unknown member on an authoritative definition", "authoritativeDefinitions", [{ url: "https://x.example", type: "businessDefinition", note: 1 }]],
  ["an id on an authoritative definition", "authoritativeDefinitions", [{ id: "a1", url: "https://x.example", type: "t" }]],
  ["an unknown member of the description object", "description", { purpose: "p", note: 1 }],
  ["a description member of the wrong type", "description", { purpose: 1 }],
  ["an unknown member on a role", "roles", [{ role: "reader", note: 1 }]],
  ["a role without its name", "roles", [{ access: "read" }]],
  ["an id on a role", "roles", [{ id: "r1", role: "reader" }]],
  ["an unknown member on a support channel", "support", [{ channel: "c", url: "https://x.example", note: 1 }]],
  ["a support channel without url", "support", [{ channel: "c" }]],
  ["custom properties on a support channel", "support", [{ channel: "c", url: "u", customProperties: [{ property: "a", value: 1 }] }]],
  ["an unknown member on the price", "price", { priceAmount: 1, note: 1 }],
  ["a price amount as text", "price", { priceAmount: "1" }],
  ["an id on the price", "price", { id: "p1", priceAmount: 1 }],
  ["an unknown member on an SLA property", "slaProperties", [{ property: "latency", value: 1, note: 1 }]],
  ["an SLA property with a description", "slaProperties", [{ property: "latency", value: 1, description: "d" }]],
  ["an SLA property without value", "slaProperties", [{ property: "latency" }]],
  ["an SLA value that is an object", "slaProperties", [{ property: "latency", value: { a: 1 } }]],
  ["an unknown member on a custom property", "customProperties", [{ property: "a", value: 1, note: 1 }]],
  ["a custom property without value", "customProperties", [{ property: "a" }]],
  ["a custom property with a description", "customProperties", [{ property: "a", value: 1, description: "d" }]],
  ["an unknown member on a server", "servers", [{ server: "s", type: "kafka", host: "h", note: 1 }]],
  ["a server of an unknown type", "servers", [{ server: "s", type: "mainframe" }]],
  ["a hive server", "servers", [{ server: "s", type: "hive", host: "h", database: "d" }]],
  ["an id on a server", "servers", [{ id: "s1", server: "s", type: "kafka", host: "h" }]],
  ["a postgres server with a port as text", "servers", [{ server: "s", type: "postgres", host: "h", port: "5432", database: "d", schema: "s" }]],
  ["a postgres server without its database", "servers", [{ server: "s", type: "postgres", host: "h", port: 5432, schema: "s" }]],
  ["an s3 server with a relative location", "servers", [{ server: "s", type: "s3", location: "bucket/path" }]],
  ["an s3 server with a format the 3.0 list lacks", "servers", [{ server: "s", type: "s3", location: "s3://b/p", format: "avro" }]],
  ["a duckdb server with a text schema", "servers", [{ server: "s", type: "duckdb", database: "d", schema: "main" }]],
  ["a custom server with a stream", "servers", [{ server: "s", type: "custom", stream: "x" }]],
  ["an id on a schema object", "schema.0.id", "s1"],
  ["an id on a property", `${P}.id`, "p1"],
  ["an id that is not a stable id", "schema.0.id", "a b"],
  ["an unknown member on a schema object", "schema.0.note", 1],
  ["an unknown member on a property", `${P}.note`, 1],
  ["an unknown member on the contract", "note", 1],
  ["a team object", "team", { name: "logistics" }],
  ["a team object with an unknown member", "team", { name: "logistics", note: 1 }],
  ["a team list with an unknown member", "team", [{ username: "u", note: 1 }]],
  ["a team list entry without username", "team", [{ role: "owner" }]],
  ["a team list entry with tags", "team", [{ username: "u", tags: ["a"] }]],
  ["a team member with an unknown member", "team", { name: "logistics", members: [{ username: "u", note: 1 }] }],
  ["logicalType timestamp", `${P}.logicalType`, "timestamp"],
  ["logicalType time", `${P}.logicalType`, "time"],
  ["an unknown logicalType", `${P}.logicalType`, "varchar"],
  ["a schema object of logicalType array", "schema.0.logicalType", "array"],
  ["a schema object of logicalType object", "schema.0.logicalType", "object"],
  ["a date with a boolean exclusiveMinimum", P, { name: "d", logicalType: "date", logicalTypeOptions: { minimum: "2020-01-01", exclusiveMinimum: true } }],
  ["a date with a text exclusiveMinimum", P, { name: "d", logicalType: "date", logicalTypeOptions: { exclusiveMinimum: "2020-01-01" } }],
  ["an integer with a boolean exclusiveMaximum", P, { name: "n", logicalType: "integer", logicalTypeOptions: { maximum: 9, exclusiveMaximum: true } }],
  ["an integer with a numeric exclusiveMaximum", P, { name: "n", logicalType: "integer", logicalTypeOptions: { exclusiveMaximum: 9 } }],
  ["a string with a minimum length", `${P}.logicalTypeOptions`, { minLength: 2 }],
  ["a string with a numeric option", `${P}.logicalTypeOptions`, { minimum: 2 }],
  ["a string with a negative minimum length", `${P}.logicalTypeOptions`, { minLength: -1 }],
  ["options on a property without logicalType", P, { name: "x", logicalTypeOptions: { minLength: 1 } }],
  ["empty options on a property without logicalType", P, { name: "x", logicalTypeOptions: {} }],
  ["options on a boolean", P, { name: "x", logicalType: "boolean", logicalTypeOptions: { anything: 1 } }],
  ["items on a string", `${P}.items`, { logicalType: "string" }],
  ["nested properties on a string", `${P}.properties`, [{ name: "a" }]],
  ["nested properties without logicalType", P, { name: "x", properties: [{ name: "a" }] }],
  ["items holding properties under an array", P, { name: "x", logicalType: "array", items: { logicalType: "array", properties: [{ name: "a" }] } }],
  ["examples that are objects", `${P}.examples`, [{ a: 1 }]],
  ["a primary key as text", `${P}.primaryKey`, "yes"],
  ["a library rule named by rule", Q, [{ type: "library", rule: "rowCount", mustBeGreaterThan: 1 }]],
  ["a library rule named by metric", Q, [{ type: "library", metric: "rowCount", mustBeGreaterThan: 1 }]],
  ["a library rule with both rule and metric", Q, [{ type: "library", rule: "nullCheck", metric: "nullValues", mustBe: 0 }]],
  ["a library rule without comparison", Q, [{ type: "library", metric: "rowCount" }]],
  ["a library rule with two comparisons", Q, [{ type: "library", metric: "rowCount", mustBeGreaterThan: 1, mustBeLessThan: 5 }]],
  ["a library rule with an unknown metric", Q, [{ type: "library", metric: "freshness", mustBe: 0 }]],
  ["a library rule with a short range", Q, [{ type: "library", metric: "rowCount", mustBeBetween: [1] }]],
  ["a library rule with a comparison as text", Q, [{ type: "library", rule: "rowCount", mustBeGreaterThan: "1" }]],
  ["an untyped rule naming a metric", Q, [{ metric: "rowCount", mustBe: 1 }]],
  ["an untyped rule naming a rule", Q, [{ rule: "rowCount", mustBe: 1 }]],
  ["an untyped rule with only a description", Q, [{ description: "rows arrive daily" }]],
  ["an sql rule with a comparison", Q, [{ type: "sql", query: "select 1", mustBe: 0 }]],
  ["an sql rule without comparison", Q, [{ type: "sql", query: "select 1" }]],
  ["an sql rule with a comparison as text", Q, [{ type: "sql", query: "select 1", mustBeGreaterThan: "1" }]],
  ["a text rule with an unknown member", Q, [{ type: "text", description: "x", note: 1 }]],
  ["a text rule with a query", Q, [{ type: "text", description: "x", query: "select 1" }]],
  ["a text rule with a metric", Q, [{ type: "text", description: "x", metric: "rowCount", mustBe: 1 }]],
  ["an id on a rule", Q, [{ id: "q1", type: "text", description: "x" }]],
  ["a rule with an unknown dimension", Q, [{ type: "text", description: "x", dimension: "freshness" }]],
  ["a custom rule without implementation", Q, [{ type: "custom", engine: "soda" }]],
  ["a custom rule with a list implementation", Q, [{ type: "custom", engine: "gx", implementation: [{ a: 1 }] }]],
  ["a relationship on a property", `${P}.relationships`, [{ to: "carriers.id" }]],
  ["a relationship on a schema object", "schema.0.relationships", [{ from: "parcels.parcel_id", to: "carriers.id" }]],
  ["a relationship mixing one and a list", "schema.0.relationships", [{ from: "parcels.parcel_id", to: ["carriers.id"] }]],
  ["a relationship to something that is not a reference", `${P}.relationships`, [{ to: "not a ref!" }]],
  ["a relationship with an unknown member", `${P}.relationships`, [{ to: "carriers.id", note: 1 }]],
  ["a status that is a number", "status", 1],
  ["no version", "version", undefined],
  ["a tag that is a number", "tags", [1]],
  ["a creation time that is not a date-time", "contractCreatedTs", "yesterday"],
  ["a schema object without name", "schema.0.name", undefined],
  ["a property without name", `${P}.name`, undefined],
  ["another kind", "kind", "DataProduct"],
  // What 3.2.0 added and changed.
  ["no status", "status", undefined],
  ["context as text", "context", "Answer in English; parcels are counted per day."],
  ["context with instructions, statements and constraints", "context", { instructions: "i", verifiedStatements: [{ question: "q", answer: "a", tags: ["t"] }], constraints: [{ id: "c1", constraint: "c" }] }],
  ["context with an unknown member", "context", { instructions: "i", note: 1 }],
  ["a verified statement without question", "context", { verifiedStatements: [{ answer: "a" }] }],
  ["a context constraint without its text", "context", { constraints: [{ id: "c1" }] }],
  ["context on a schema object", "schema.0.context", { instructions: "i" }],
  ["context on a property", `${P}.context`, "i"],
  ["synonyms on a schema object", "schema.0.synonyms", [{ synonym: "shipments", locale: "en-GB", source: "glossary" }]],
  ["synonyms on a property", `${P}.synonyms`, [{ id: "s1", synonym: "parcel number" }]],
  ["a synonym without its text", `${P}.synonyms`, [{ locale: "en" }]],
  ["a synonym with an unknown member", `${P}.synonyms`, [{ synonym: "x", note: 1 }]],
  ["a deprecated property", `${P}.deprecated`, true],
  ["deprecated as text", "schema.0.deprecated", "yes"],
  ["a semantic type", `${P}.semanticType`, "dimension"],
  ["an unknown semantic type", `${P}.semanticType`, "fact"],
  ["an enumeration", `${P}.enum`, [{ value: "small", label: "Small" }, { value: 2, description: "two" }, { value: null }]],
  ["an empty enumeration", `${P}.enum`, []],
  ["an enumeration entry without value", `${P}.enum`, [{ label: "Small" }]],
  ["an enumeration entry written twice", `${P}.enum`, [{ value: "a", label: "A" }, { label: "A", value: "a" }]],
  ["two enumeration entries of one value", `${P}.enum`, [{ value: "a", label: "A" }, { value: "a", label: "B" }]],
  ["an enumeration value that is an object", `${P}.enum`, [{ value: { a: 1 } }]],
  ["an enumeration entry with an unknown member", `${P}.enum`, [{ value: "a", note: 1 }]],
  ["a map", P, { name: "m", logicalType: "map", map: { key: { logicalType: "string" }, value: { logicalType: "integer", logicalTypeOptions: { minimum: 0 } } } }],
  ["a map of objects", P, { name: "m", logicalType: "map", map: { key: { logicalType: "string" }, value: { logicalType: "object", properties: [{ name: "a", logicalType: "string" }] } } }],
  ["a map without map", P, { name: "m", logicalType: "map" }],
  ["a map without its value", P, { name: "m", logicalType: "map", map: { key: { logicalType: "string" } } }],
  ["a map with an unknown member", P, { name: "m", logicalType: "map", map: { key: { logicalType: "string" }, value: { logicalType: "string" }, note: 1 } }],
  ["a map whose key names no logicalType", P, { name: "m", logicalType: "map", map: { key: {}, value: { logicalType: "string" } } }],
  ["map on a string", `${P}.map`, { key: { logicalType: "string" }, value: { logicalType: "string" } }],
  ["a property without logicalType", P, { name: "x", physicalType: "varchar" }],
  ["a property with map and no logicalType", P, { name: "x", map: { key: { logicalType: "string" }, value: { logicalType: "string" } } }],
  ["an array of maps", P, { name: "a", logicalType: "array", items: { logicalType: "map", map: { key: { logicalType: "string" }, value: { logicalType: "string" } } } }],
  ["a vector", P, { name: "v", logicalType: "vector", logicalTypeOptions: { dimensions: 768, elementType: "float32", distanceMetric: "cosine", embeddingModel: "e", normalized: true } }],
  ["a vector without options", P, { name: "v", logicalType: "vector" }],
  ["a vector without dimensions", P, { name: "v", logicalType: "vector", logicalTypeOptions: { elementType: "float32" } }],
  ["a vector of no dimensions", P, { name: "v", logicalType: "vector", logicalTypeOptions: { dimensions: 0 } }],
  ["a vector with an unknown element type", P, { name: "v", logicalType: "vector", logicalTypeOptions: { dimensions: 3, elementType: "float8" } }],
  ["a vector with an unknown option", P, { name: "v", logicalType: "vector", logicalTypeOptions: { dimensions: 3, note: 1 } }],
  ["a postgres server with a port variable", "servers", [{ server: "s", type: "postgres", host: "${DB_HOST}", port: "${DB_PORT}", database: "${DB_NAME:-parcels}", schema: "public" }]],
  ["a kafka server with a port", "servers", [{ server: "s", type: "kafka", host: "h", port: 9092 }]],
  ["an s3 server with an encoding", "servers", [{ server: "s", type: "s3", location: "s3://b/p", encoding: "UTF-8" }]],
  ["a postgres server with an encoding", "servers", [{ server: "s", type: "postgres", host: "h", port: 5432, database: "d", schema: "s", encoding: "UTF-8" }]],
  ["an s3 location that is a variable", "servers", [{ server: "s", type: "s3", location: "${BUCKET}/parcels" }]],
  ["an athena server without staging dir", "servers", [{ server: "s", type: "athena", schema: "s", workgroup: "primary" }]],
  ["an exasol server", "servers", [{ server: "s", type: "exasol", host: "n11..14.example.com", port: 8563, schema: "s" }]],
  ["an exasol server without host", "servers", [{ server: "s", type: "exasol", schema: "s" }]],
  ["a hana server", "servers", [{ server: "s", type: "hana", host: "h", port: "30015", database: "d" }]],
  ["an iceberg server", "servers", [{ server: "s", type: "iceberg", catalog: "c", catalogUrl: "https://catalog.example/api", namespace: "n" }]],
  ["an iceberg server without catalog url", "servers", [{ server: "s", type: "iceberg", catalog: "c" }]],
  ["an iceberg server with a relative catalog url", "servers", [{ server: "s", type: "iceberg", catalog: "c", catalogUrl: "catalog/api" }]],
  ["a teradata server", "servers", [{ server: "s", type: "teradata", host: "h", port: 1025, database: "d" }]],
  ["a teradata server with a location", "servers", [{ server: "s", type: "teradata", host: "h", location: "s3://x" }]],
  ["a custom property with a vendor", "customProperties", [{ property: "a", value: 1, vendor: "soda" }]],
  ["an SLA property with custom properties", "slaProperties", [{ property: "latency", value: 1, customProperties: [{ property: "a", value: 1 }], authoritativeDefinitions: [{ url: "https://x.example", type: "t" }] }]],
  ["an id on a relationship", `${P}.relationships`, [{ id: "fk.carrier", to: "carriers.id" }]],
  ["a relationship to a dashed shorthand reference", `${P}.relationships`, [{ to: "carrier-data.carriers.id" }]],
  ["a relationship to a .yml reference", `${P}.relationships`, [{ to: "other.yml#/schema/carriers/properties/id" }]],
  ["a stable id with a dot", "schema.0.id", "fdir.dataset"],
  ["a map without its key", P, { name: "m", logicalType: "map", map: { value: { logicalType: "string" } } }],
  ["a server encoding that is a number", "servers", [{ server: "s", type: "kafka", host: "h", encoding: 8 }]],
  ["a custom property vendor that is a number", "customProperties", [{ property: "a", value: 1, vendor: 1 }]],
  ["an SLA authoritative definition without type", "slaProperties", [{ property: "latency", value: 1, authoritativeDefinitions: [{ url: "https://x.example" }] }]],
  ["a port that is a boolean", "servers", [{ server: "s", type: "postgres", host: "h", port: true, database: "d", schema: "s" }]],
];

describe.each(Object.keys(OFFICIAL))("ODCS %s is judged as its official schema judges it", (apiVersion) => {
  const official = officialSchema(OFFICIAL[apiVersion]!);
  it.each(CASES)("%s", (_name, path, value) => {
    const doc = change(contract(apiVersion), path, structuredClone(value));
    const expected = official(doc);
    const violations = odcsFormat.validate(doc);
    expect({ valid: violations.length === 0, violations }).toMatchObject({ valid: expected });
  });
});

describe.each(["v3.0.2", "v3.0.0"])("ODCS %s converted to 3.1.0", (apiVersion) => {
  const official = officialSchema(OFFICIAL[apiVersion]!);
  const latest = officialSchema(OFFICIAL["v3.1.0"]!);
  const valid = CASES.map(([name, path, value]) => [name, change(contract(apiVersion), path, structuredClone(value))] as const).filter(([, doc]) => official(doc));

  it.each(valid)("%s: validates against the official 3.1.0 schema", (_name, doc) => {
    const converted = odcsFormat.toOdcs(doc as Doc & { id: string });
    expect(latest(converted) ? [] : latest.errors).toEqual([]);
  });
});

describe.each(["v3.0.2", "v3.0.0", "v3.1.0"])("ODCS %s brought up to 3.2.0", (apiVersion) => {
  const official = officialSchema(OFFICIAL[apiVersion]!);
  const target = officialSchema(OFFICIAL["v3.2.0"]!);
  const valid = CASES.map(([name, path, value]) => [name, change(contract(apiVersion), path, structuredClone(value))] as const).filter(([, doc]) => official(doc));

  it.each(valid)("%s: validates against the official 3.2.0 schema", (_name, doc) => {
    const lifted = liftTo32(odcsFormat.toOdcs(doc as Doc & { id: string }));
    expect(lifted.apiVersion).toBe("v3.2.0");
    expect(target(lifted) ? [] : target.errors).toEqual([]);
  });
});
