import { describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { DATABASES } from "../../../test/helpers/databases.js";
import { createTeamKey, suiteServer } from "../../../test/helpers/suite-server.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

/** A run as the data contract CLI serialises it: every field present, unset ones null. */
export function cliRun(dataContractId: string, runId: string, result: string, server: string | null = "production") {
  return {
    runId,
    datacontractCliVersion: "0.10.23",
    dataContractId,
    dataContractVersion: "1.0.0",
    dataProductId: null,
    outputPortId: null,
    server,
    filters: null,
    timestampStart: "2026-06-01T10:46:28.195230Z",
    timestampEnd: "2026-06-01T10:46:42.481447Z",
    result,
    checks: [
      { id: null, key: "orders__order_id__field_is_present", category: "schema", type: "field_is_present", name: "Check that field order_id is present", model: "orders", field: "order_id", qualityId: null, tags: null, engine: "soda", language: null, implementation: null, result: "passed", reason: null, diagnostics: null, failedSamples: null },
      { id: null, key: "orders__row_count", category: "quality", type: "row_count", name: "row_count >= 5", model: "orders", field: null, qualityId: null, tags: null, engine: "soda", language: "sql", implementation: "SELECT COUNT(*) FROM orders", result, reason: result === "passed" ? null : "Row count 3 < 5", diagnostics: { value: 3 }, failedSamples: null },
    ],
    logs: [{ level: "INFO", message: "Running tests for data contract orders with server production", timestamp: "2026-06-01T10:46:29.083871Z" }],
  };
}

const withoutNulls = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function testResultTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`test results (%s)${check.label}`, (kind) => {
    let salesKey: string;
    let otherKey: string;
    const t = suiteServer(kind, {
      teams: { sales: "Sales", search: "Search" },
      setup: async (t) => {
        const contract = { dataContractSpecification: "0.9.3", id: "orders", info: { title: "Orders", version: "1.0.0", owner: "sales" }, schema: { type: "custom", specification: "x" } };
        expect((await t.api("PUT", "/api/datacontracts/orders", contract)).status).toBe(200);
        salesKey = await createTeamKey(t, "sales", "s");
        otherKey = await createTeamKey(t, "search", "o");
      },
    });

    const runId = (n: number) => `7f0c1a5e-0000-4000-8000-00000000000${n}`;

    it("takes a published run with exactly 200 and location-html; the run's id is its runId", async () => {
      const res = await t.api("POST", "/api/test-results", cliRun("orders", runId(1), "passed"), { key: salesKey });
      expect(res.status).toBe(200);
      expect(res.headers.get("location-html")).toBe(`http://steward.test/test-results/${runId(1)}`);
      expect(res.body.id).toBe(runId(1));
      const read = await t.api("GET", `/api/test-results/${runId(1)}`);
      // Members sent as null are kept as absent, as readers of the reference shape expect.
      const sent = cliRun("orders", runId(1), "passed");
      expect(read.body).toEqual({
        id: runId(1),
        ...withoutNulls(sent),
        checks: sent.checks.map(withoutNulls),
      });
      check.answer("GET", "/api/test-results/{id}", 200, read.body);
      const events = ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.type.endsWith("TestResultsCreatedEvent"));
      expect(events.map((e) => e.data)).toEqual([{ id: runId(1), timestamp: expect.any(String), status: "passed" }]);
    });

    it("answers a second publish of the same run unchanged, and refuses other content under its id", async () => {
      expect((await t.api("POST", "/api/test-results", cliRun("orders", runId(1), "passed"))).status).toBe(200);
      expect((await t.api("POST", "/api/test-results", cliRun("orders", runId(1), "failed"))).status).toBe(409);
      expect((await t.api("GET", "/api/test-results")).body).toHaveLength(1);
    });

    it("takes a run as YAML too, and answers it as JSON with its members in the order sent", async () => {
      const run = { ...cliRun("orders", runId(5), "passed"), zeta: 1, alpha: { b: 2, a: 1 } };
      const res = await t.api("POST", "/api/test-results", undefined, { contentType: "application/yaml", raw: toYaml(run) });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const read = await t.api("GET", `/api/test-results/${runId(5)}`);
      expect(read.text).toBe(res.text);
      expect(Object.keys(read.body)).toEqual(Object.keys(withoutNulls(run)).concat("id"));
      expect(Object.keys(read.body.alpha)).toEqual(["b", "a"]);
      expect((await t.api("POST", "/api/test-results", undefined, { contentType: "application/yaml", raw: "result: [" })).status).toBe(400);
      expect((await t.api("DELETE", `/api/test-results/${runId(5)}`)).status).toBe(204);
    });

    it("refuses runs of unknown contracts, invalid runs, and runs of another team's contract", async () => {
      const unknown = await t.api("POST", "/api/test-results", cliRun("nope", runId(2), "passed"));
      expect(unknown.status).toBe(422);
      expect(unknown.body.violations).toEqual([{ field: "dataContractId", message: expect.stringContaining("nope") }]);
      const invalid = await t.api("POST", "/api/test-results", { ...cliRun("orders", runId(2), "great"), checks: [{ result: "passed" }] });
      expect(invalid.status).toBe(422);
      expect(invalid.body.violations.map((v: any) => v.field).sort()).toEqual(["checks[0].type", "result"]);
      expect((await t.api("POST", "/api/test-results", cliRun("orders", runId(2), "passed"), { key: otherKey })).status).toBe(403);
      expect((await t.api("GET", "/api/test-results")).body).toHaveLength(1);
    });

    it("lists newest first without checks and logs, filtered by contract and server, and summarises the latest per server", async () => {
      await t.api("POST", "/api/test-results", cliRun("orders", runId(3), "failed", "staging"));
      await t.api("POST", "/api/test-results", cliRun("orders", runId(4), "warning"));
      const list = await t.api("GET", "/api/test-results?dataContractId=orders");
      expect(list.body.map((r: any) => r.id)).toEqual([runId(4), runId(3), runId(1)]);
      expect(list.body[0].checks).toBeUndefined();
      expect(list.body[0].logs).toBeUndefined();
      check.answer("GET", "/api/test-results", 200, list.body);
      expect((await t.api("GET", "/api/test-results?server=staging")).body.map((r: any) => r.id)).toEqual([runId(3)]);
      expect((await t.api("GET", "/api/test-results?dataContractId=other")).body).toEqual([]);
      const paged = await t.api("GET", "/api/test-results?pageSize=2");
      expect(paged.body).toHaveLength(2);
      expect(paged.headers.get("link")).toBe('</api/test-results?pageSize=2&p=1>; rel="next"');
      const latest = await t.api("GET", "/api/datacontracts/orders/test-results");
      expect(latest.body).toMatchObject({
        dataContractId: "orders",
        latest: { id: runId(4), result: "warning" },
        servers: [
          { server: "production", id: runId(4), result: "warning" },
          { server: "staging", id: runId(3), result: "failed" },
        ],
      });
      expect((await t.api("GET", "/api/datacontracts/nope/test-results")).status).toBe(404);
    });

    it("deletes with 204 and a TestResultsDeletedEvent; other organizations see nothing", async () => {
      const other = await t.createOrganization(`tr-${kind}`);
      expect((await t.api("GET", `/api/test-results/${runId(3)}`, undefined, { key: other.key })).status).toBe(404);
      expect((await t.api("DELETE", `/api/test-results/${runId(3)}`, undefined, { key: other.key })).status).toBe(404);
      expect((await t.api("GET", "/api/test-results", undefined, { key: other.key })).body).toEqual([]);
      expect((await t.api("DELETE", `/api/test-results/${runId(3)}`, undefined, { key: otherKey })).status).toBe(403);
      expect((await t.api("DELETE", `/api/test-results/${runId(3)}`, undefined, { key: salesKey })).status).toBe(204);
      expect((await t.api("GET", `/api/test-results/${runId(3)}`)).status).toBe(404);
      const last = ((await t.api("GET", "/api/events")).body as any[]).at(-1);
      expect(last.type.split(".").pop()).toBe("TestResultsDeletedEvent");
      expect(last.subject).toBe(runId(3));
    });
  });
}
