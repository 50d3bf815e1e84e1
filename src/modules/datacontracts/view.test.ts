import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/contracts/${name}`, import.meta.url), "utf8");

describe.each(DATABASES)("GET /api/datacontracts/{id}/view (%s)", (kind) => {
  const t = suiteServer(kind, { teams: { finance: "Finance", sales: "Sales" } });

  it("answers every promise of an ODCS contract sent as YAML, titled by its data product and business name", async () => {
    expect((await t.api("PUT", "/api/datacontracts/payments-contract", undefined, { raw: fixture("odcs-payments.yaml"), contentType: "application/yaml" })).status).toBe(200);
    const res = await t.api("GET", "/api/datacontracts/payments-contract/view");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: "Payments — Card payments", owner: "finance", format: "odcs" });
    expect(res.body.schemas[0].models[0].fields.find((f: { path: string }) => f.path === "card_last4").classification).toBe("restricted");
    expect(res.body.sla).toHaveLength(4);
    expect(res.body.roles).toHaveLength(2);
    // The list's title and search follow the same rule.
    const listed = await t.api("GET", "/api/datacontracts?q=Payments");
    expect(listed.body.map((c: { id: string }) => c.id)).toContain("payments-contract");
  });

  it("answers a Data Contract Specification 1.x contract's rules and service levels", async () => {
    expect((await t.api("PUT", "/api/datacontracts/orders-quality", undefined, { raw: fixture("dcs-1-orders-quality.yaml"), contentType: "application/yaml" })).status).toBe(200);
    const res = await t.api("GET", "/api/datacontracts/orders-quality/view");
    expect(res.status).toBe(200);
    expect(res.body.schemas[0].models[0].rules[0].text).toBe("the query's result must be greater than 10");
    expect(res.body.sla.map((p: { property: string }) => p.property)).toEqual(["availability", "retention", "latency", "frequency"]);
  });

  it("is a 404 for a contract that does not exist", async () => {
    const res = await t.api("GET", "/api/datacontracts/nope/view");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/problem\+json/);
  });
});
