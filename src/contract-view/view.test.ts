import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { contractModels } from "../contract-formats/models.js";
import { DEFAULT_PARSE_LIMITS } from "../schema-formats/limits.js";
import { contractTitle } from "../contract-formats/title.js";
import { contractView } from "./view.js";
import { ruleInWords } from "./words.js";

const load = (name: string) => parse(readFileSync(new URL(`../../test/fixtures/contracts/${name}`, import.meta.url), "utf8")) as Record<string, unknown> & { id: string };
const viewOf = (doc: Record<string, unknown> & { id: string }) => contractView(doc, contractModels(doc, DEFAULT_PARSE_LIMITS));

describe("the contract view", () => {
  it("shows every promise of an ODCS contract: keys, classifications, rules in words, servers, SLA, roles, support, price, terms", () => {
    const view = viewOf(load("odcs-payments.yaml"));
    expect(view).toMatchObject({ id: "payments-contract", title: "Payments — Card payments", format: "odcs", formatVersion: "v3.1.0", version: "1.0.0", owner: "finance", status: "active" });
    const payments = view.schemas[0].models[0];
    expect(payments.rules.map((r) => r.text)).toEqual(["rowCount must be greater than 1000"]);
    const field = (path: string) => payments.fields.find((f) => f.path === path)!;
    expect(field("payment_id")).toMatchObject({ primaryKey: true, unique: true, required: true, logicalType: "string", physicalType: "varchar(36)" });
    expect(field("payment_id").rules.map((r) => r.text)).toEqual(["nullValues must be 0"]);
    expect(field("amount_cents").rules[0].text).toBe('invalidValues (validValues: [0]) must be less than 5 percent');
    expect(field("currency").rules[0]).toMatchObject({ type: "sql", text: "the query's result must be 0" });
    expect(field("card_last4")).toMatchObject({ classification: "restricted", constraints: ["length 4 to 4"] });
    expect(field("merchant.country")).toMatchObject({ depth: 1, classification: "public" });
    expect(view.servers.map((s) => [s.name, s.type, s.environment])).toEqual([
      ["production", "postgresql", "prod"],
      ["analytics", "bigquery", "prod"],
    ]);
    expect(view.servers[0].details).toMatchObject({ host: "db.example.com", port: 5432 });
    expect(view.sla.map((p) => [p.property, p.value, p.unit])).toEqual([
      ["latency", 4, "h"],
      ["retention", 3, "y"],
      ["availability", 99.9, undefined],
      ["frequency", 1, "d"],
    ]);
    expect(view.roles[0]).toMatchObject({ role: "payments_reader", access: "read", firstLevelApprovers: "Finance lead", secondLevelApprovers: "Data protection officer" });
    expect(view.support.map((s) => s.channel)).toEqual(["#payments-help", "payments-team"]);
    expect(view.price).toMatchObject({ amount: 0.5, currency: "EUR", unit: "megabyte" });
    expect(view.terms.map((t) => t.name)).toEqual(["purpose", "usage", "limitations"]);
  });

  it("shows the context block of a v3.2 contract: instructions, verified statements, constraints", () => {
    const doc = {
      ...load("odcs-payments.yaml"),
      context: { instructions: "Amounts are cents.", verifiedStatements: [{ question: "Revenue?", answer: "Sum of amounts." }, { question: "Open?" }], constraints: [{ constraint: "No joins on card_last4." }] },
    };
    expect(viewOf(doc).context).toEqual({
      path: "context",
      instructions: "Amounts are cents.",
      verifiedStatements: [{ question: "Revenue?", answer: "Sum of amounts." }, { question: "Open?" }],
      constraints: ["No joins on card_last4."],
    });
    expect(viewOf({ ...doc, context: "Just instructions." }).context).toMatchObject({ instructions: "Just instructions." });
  });

  it("reads a Data Contract Specification 1.x contract's quality, enum, classification, service levels, terms and contact", () => {
    const view = viewOf(load("dcs-1-orders-quality.yaml"));
    expect(view).toMatchObject({ title: "Orders with quality rules", format: "dcs", owner: "sales" });
    const orders = view.schemas[0].models[0];
    expect(orders.rules[0]).toMatchObject({ type: "sql", text: "the query's result must be greater than 10" });
    const field = (path: string) => orders.fields.find((f) => f.path === path)!;
    expect(field("order_id")).toMatchObject({ primaryKey: true, unique: true });
    expect(field("order_id").rules[0].text).toBe("duplicateValues must be 0");
    expect(field("status")).toMatchObject({ values: ["open", "shipped", "cancelled"], classification: "internal" });
    expect(view.sla.map((p) => [p.property, p.value, p.path])).toEqual([
      ["availability", "99.5%", "servicelevels.availability.percentage"],
      ["retention", "P1Y", "servicelevels.retention.period"],
      ["latency", "25h", "servicelevels.latency.threshold"],
      ["frequency", "daily", "servicelevels.frequency.interval"],
    ]);
    expect(view.servers[0]).toMatchObject({ name: "production", type: "s3", details: { format: "parquet" } });
    expect(view.support[0]).toMatchObject({ channel: "Sales data team", url: "mailto:sales-data@example.com" });
    expect(view.price).toMatchObject({ text: "Free of charge." });
    expect(view.terms.map((t) => t.name)).toEqual(["usage", "billing", "noticePeriod"]);
  });

  it("shows dbt tests of a 0.9 contract as rules", () => {
    const doc = {
      id: "dbt-orders",
      info: { title: "Orders", version: "1", owner: "sales" },
      schema: { type: "dbt", specification: "version: 2\nmodels:\n  - name: orders\n    columns:\n      - name: id\n        data_type: text\n        tests: [not_null, unique]\n" },
    };
    const field = viewOf(doc).schemas[0].models[0].fields[0];
    expect(field.rules.map((r) => [r.source, r.name, r.text])).toEqual([
      ["dbt", "not_null", "must not be null (dbt not_null)"],
      ["dbt", "unique", "must be unique (dbt unique)"],
    ]);
  });

  it("words every comparison", () => {
    expect(ruleInWords({ type: "library", metric: "rowCount", comparison: { operator: "mustBeBetween", value: [10, 20] } })).toBe("rowCount must be between 10 and 20");
    expect(ruleInWords({ type: "library", metric: "nullValues", comparison: { operator: "mustBeLessOrEqualTo", value: 3 } })).toBe("nullValues must be at most 3");
    expect(ruleInWords({ type: "text", description: "Looks right." })).toBe("Looks right.");
    expect(ruleInWords({ type: "custom", engine: "soda", description: "freshness" })).toBe("soda check: freshness");
  });
});

describe("a contract's title", () => {
  it("is its name, else its data product and business name, else its id", () => {
    expect(contractTitle({ id: "c1", name: "Orders", dataProduct: "Shop" })).toBe("Orders");
    expect(contractTitle({ id: "c1", info: { title: "Orders v0.9" } })).toBe("Orders v0.9");
    expect(contractTitle({ id: "c1", dataProduct: "Shop", schema: [{ name: "o" }, { businessName: "Orders" }] })).toBe("Shop — Orders");
    expect(contractTitle({ id: "c1", schema: [{ businessName: "Orders" }] })).toBe("Orders");
    expect(contractTitle({ id: "c1", name: "  " })).toBe("c1");
  });
});
