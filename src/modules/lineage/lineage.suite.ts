import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { createTeamKey, suiteServer } from "../../../test/helpers/suite-server.js";
import { ManualClock } from "../../platform/clock.js";
import { openDatabase } from "../../platform/database/index.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";
import { airflowEvent, dbtEvent, sparkEvent } from "./lineage.fixtures.js";

const run = (n: number) => `0190a3c4-1f2e-7d00-8000-${String(n).padStart(12, "0")}`;

/** The lineage tests, with `check` holding answers against the reference description (test/helpers/checks.ts). */
export function lineageTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`OpenLineage lineage (%s)${check.label}`, (kind) => {
    let analyticsKey: string;
    let salesKey: string;
    let readKey: string;
    const clock = new ManualClock("2026-06-01T08:00:00.000Z");

    const t = suiteServer(kind, {
      clock,
      teams: { sales: "sales", analytics: "analytics", crm: "crm" },
      setup: async (t) => {
        const product = (title: string, owner: string, outputPorts: object[]) => ({ dataProductSpecification: "0.0.1", info: { title, owner, status: "active" }, outputPorts });
        const puts = [
          t.api("PUT", "/api/dataproducts/orders", product("Orders", "sales", [
            { id: "pg", type: "postgres", server: { host: "db", port: 5432, database: "shop", schema: "public", table: "orders" } },
            { id: "lake", type: "s3", server: { location: "s3://lake/orders/" } },
            { id: "open", type: "postgres", autoApprove: true, server: { host: "db", database: "shop", schema: "public", table: "orders_open" } },
          ])),
          t.api("PUT", "/api/dataproducts/customers", product("Customers", "crm", [{ id: "mysql", type: "mysql", server: { host: "crm-db", database: "crm" } }])),
          t.api("PUT", "/api/dataproducts/reporting", product("Reporting", "analytics", [{ id: "bq", type: "bigquery", server: { project: "acme", dataset: "reports" } }])),
        ];
        for (const res of await Promise.all(puts)) expect(res.status, res.text).toBe(200);
        analyticsKey = await createTeamKey(t, "analytics", "a");
        salesKey = await createTeamKey(t, "sales", "s");
        readKey = (await t.api("POST", "/api/api-keys", { displayName: "r", scope: "organization_read" })).body.key;
      },
    });

    const violationEvents = async () =>
      ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.type.endsWith(".AccessViolationDetectedEvent"));

    it("takes a dbt-ol event and answers it back as sent, column lineage included, by the reference filters", async () => {
      const event = dbtEvent(run(1));
      const res = await t.api("POST", "/api/v1/lineage", event);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ accepted: 1, violations: 0 });
      const listed = await t.api("GET", `/api/v1/lineage?runId=${run(1)}`);
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([event]);
      check.answer("GET", "/api/v1/lineage", 200, listed.body);
      expect(listed.body[0].outputs[0].facets.columnLineage.fields.revenue.inputFields[0].field).toBe("amount");
      expect((await t.api("GET", "/api/v1/lineage?jobNamespace=dbt&jobName=reporting.marts.daily_revenue&eventType=COMPLETE")).body).toHaveLength(1);
      expect((await t.api("GET", "/api/v1/lineage?eventType=START&jobNamespace=dbt")).body).toEqual([]);
      expect((await t.api("GET", "/api/v1/lineage?eventType=BOGUS")).status).toBe(400);
      // The same event again, as a transport retries it after a lost answer: stored once.
      expect((await t.api("POST", "/api/v1/lineage", event)).status).toBe(200);
      expect((await t.api("GET", `/api/v1/lineage?runId=${run(1)}`)).body).toHaveLength(1);
    });

    it("stores an event without eventType once when it is sent again, alone or twice in one array", async () => {
      const { eventType: _, ...untyped } = dbtEvent(run(70));
      for (let i = 0; i < 2; i++) expect((await t.api("POST", "/api/v1/lineage", untyped)).status).toBe(200);
      expect((await t.api("GET", `/api/v1/lineage?runId=${run(70)}`)).body).toEqual([untyped]);

      const { eventType: __, ...batched } = dbtEvent(run(71));
      const res = await t.api("POST", "/api/v1/lineage", [batched, batched]);
      expect(res.status, res.text).toBe(200);
      expect((await t.api("POST", "/api/v1/lineage", [batched])).status).toBe(200);
      expect((await t.api("GET", `/api/v1/lineage?runId=${run(71)}`)).body).toEqual([batched]);
      // With a type, the same run and time is another event.
      expect((await t.api("POST", "/api/v1/lineage", dbtEvent(run(71)))).status).toBe(200);
      expect((await t.api("GET", `/api/v1/lineage?runId=${run(71)}`)).body).toHaveLength(2);
      // Gone again, so the lists of the later tests (checked against the reference description,
      // whose events all carry a type) are as before.
      expect((await t.api("DELETE", `/api/v1/lineage?runId=${run(70)}`)).body).toEqual({ deletedCount: 1 });
      expect((await t.api("DELETE", `/api/v1/lineage?runId=${run(71)}`)).body).toEqual({ deletedCount: 2 });
    });

    it("takes an array of Airflow and Spark events in one request, and pages the list", async () => {
      const res = await t.api("POST", "/api/v1/lineage?dataProductId=customers", [airflowEvent(run(2), "START"), airflowEvent(run(2), "COMPLETE"), sparkEvent(run(3))]);
      expect(res.status, res.text).toBe(200);
      expect(res.body.accepted).toBe(3);
      expect((await t.api("GET", "/api/v1/lineage?dataProductId=customers")).body.map((e: any) => e.eventType)).toEqual(["START", "COMPLETE", "COMPLETE"]);
      check.answer("GET", "/api/v1/lineage", 200, (await t.api("GET", "/api/v1/lineage")).body);
      const first = await t.api("GET", "/api/v1/lineage?pageSize=2");
      expect(first.body).toHaveLength(2);
      expect(first.headers.get("link")).toContain("p=1");
      expect((await t.api("GET", "/api/v1/lineage?pageSize=2&p=1")).body).toHaveLength(2);
    });

    it("refuses events that break the OpenLineage facts with a 422 naming the member, and stores none of the request", async () => {
      const before = (await t.api("GET", "/api/v1/lineage")).body.length;
      const broken = dbtEvent("not-a-uuid") as any;
      const res = await t.api("POST", "/api/v1/lineage", [dbtEvent(run(9)), broken, { ...dbtEvent(run(10)), job: { namespace: "dbt" } }]);
      expect(res.status).toBe(422);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const fields = res.body.violations.map((v: any) => v.field);
      expect(fields).toEqual(expect.arrayContaining(["[1].run.runId", "[2].job.name"]));
      const single = await t.api("POST", "/api/v1/lineage", { ...dbtEvent(run(11)), eventType: "DONE", eventTime: "yesterday" });
      expect(single.status).toBe(422);
      expect(single.body.violations.map((v: any) => v.field)).toEqual(expect.arrayContaining(["eventType", "eventTime"]));
      expect((await t.api("POST", "/api/v1/lineage", "just text")).status).toBe(400);
      expect((await t.api("POST", "/api/v1/lineage", [])).status).toBe(400);
      expect((await t.api("GET", "/api/v1/lineage")).body).toHaveLength(before);
    });

    it("answers hostile bodies with 4xx: too many events, facets nested too deep, an event too large", async () => {
      const many = Array.from({ length: 1001 }, (_, i) => ({ eventTime: "2026-06-01T00:00:00Z", producer: "https://x", run: { runId: run(i) }, job: { namespace: "n", name: "j" } }));
      const tooMany = await t.api("POST", "/api/v1/lineage", many);
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.detail).toMatch(/at most 1000/);
      let deep: unknown = {};
      for (let i = 0; i < 300; i++) deep = { nested: deep };
      const deepRes = await t.api("POST", "/api/v1/lineage", { ...dbtEvent(run(12)), job: { namespace: "dbt", name: "x", facets: { deep } } });
      expect(deepRes.status).toBe(400);
      const big = await t.api("POST", "/api/v1/lineage", { ...dbtEvent(run(13)), run: { runId: run(13), facets: { blob: { text: "x".repeat(1_100_000) } } } });
      expect(big.status).toBe(422);
      const manyInputs = await t.api("POST", "/api/v1/lineage", { ...dbtEvent(run(14)), inputs: Array.from({ length: 1001 }, (_, i) => ({ namespace: "s3://x", name: `f${i}` })) });
      expect(manyInputs.status).toBe(422);
      const wide = (i: number) => ({ ...sparkEvent(run(100 + i)), inputs: Array.from({ length: 1000 }, (_, j) => ({ namespace: "s3://x", name: `f${j}` })), outputs: [] });
      const tooWide = await t.api("POST", "/api/v1/lineage", Array.from({ length: 21 }, (_, i) => wide(i)));
      expect(tooWide.status).toBe(400);
      expect(tooWide.body.detail).toMatch(/at most 20000 input and output datasets/);
      expect((await t.api("GET", `/api/v1/lineage?runId=${run(13)}`)).body).toEqual([]);
    });

    it("lets team keys post, but not for another team's product, and read-only keys not at all", async () => {
      expect((await t.api("POST", "/api/v1/lineage", sparkEvent(run(20)), { key: readKey })).status).toBe(403);
      expect((await t.api("POST", "/api/v1/lineage?dataProductId=customers", sparkEvent(run(21)), { key: analyticsKey })).status).toBe(403);
      expect((await t.api("POST", "/api/v1/lineage?dataProductId=reporting", sparkEvent(run(22)), { key: analyticsKey })).status).toBe(200);
      expect((await t.api("GET", `/api/v1/lineage?runId=${run(21)}`)).body).toEqual([]);
      expect((await t.api("GET", `/api/v1/lineage?runId=${run(22)}`, undefined, { key: readKey })).body).toHaveLength(1);
    });

    it("raises AccessViolationDetectedEvent when a run reads a port's dataset without an active access, once per job, port and day", async () => {
      const before = (await violationEvents()).length;
      // The dbt model of reporting reads orders.pg; the entropy_data run facet names the consumer.
      const event = dbtEvent(run(30)) as any;
      event.run.facets.entropy_data = { _producer: "https://example.com", _schemaURL: "https://example.com/facet.json", dataProductId: "reporting", outputPortName: "bq" };
      const res = await t.api("POST", "/api/v1/lineage", event, { key: analyticsKey });
      expect(res.status, res.text).toBe(200);
      expect(res.body.violations).toBe(1);
      const raised = (await violationEvents()).slice(before);
      expect(raised).toHaveLength(1);
      expect(raised[0].subject).toBe("orders");
      expect(raised[0].data).toMatchObject({
        id: "orders",
        outputPortId: "pg",
        violation: { consumerDataProductId: "reporting", consumerTeamId: "analytics", job: { namespace: "dbt", name: "reporting.marts.daily_revenue" }, runId: run(30), dataset: { namespace: "postgres://db:5432", name: "shop.public.orders" } },
      });
      // The same job again the same day: recorded once.
      const again = await t.api("POST", "/api/v1/lineage?dataProductId=reporting", dbtEvent(run(31)), { key: analyticsKey });
      expect(again.body.violations).toBe(0);
      expect((await violationEvents()).length).toBe(before + 1);
      // Earlier, the Spark run posted for customers read the lake port: that is on record too.
      const listed = await t.api("GET", "/api/v1/lineage/violations?dataProductId=orders");
      expect(listed.body).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ outputPortId: "pg", consumerDataProductId: "reporting", day: "2026-06-01", runId: run(30) }),
          expect.objectContaining({ outputPortId: "lake", consumerDataProductId: "customers", consumerTeamId: "crm", runId: run(3) }),
        ]),
      );
      expect(listed.body).toHaveLength(2);
      // A product with nothing on record answers an empty list; one not in the catalog, a 404 problem.
      expect((await t.api("GET", "/api/v1/lineage/violations?dataProductId=reporting")).body).toEqual([]);
      const unknown = await t.api("GET", "/api/v1/lineage/violations?dataProductId=nope");
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect((await t.api("GET", "/api/v1/lineage/violations")).status).toBe(400);
      // The next day, the same read is recorded again.
      clock.advance(24 * 3600 * 1000);
      expect((await t.api("POST", "/api/v1/lineage?dataProductId=reporting", dbtEvent(run(32)))).body.violations).toBe(1);
    });

    it("raises nothing for a read under an active access, nor for a team's own ports", async () => {
      const access = await t.api("POST", "/api/access", { info: { purpose: "Revenue" }, provider: { dataProductId: "orders", outputPortId: "open" }, consumer: { dataProductId: "reporting" } });
      expect(access.status, access.text).toBe(201);
      expect(access.body.info.active).toBe(true);
      const before = (await violationEvents()).length;
      const reads = { ...dbtEvent(run(40)), job: { namespace: "dbt", name: "reporting.marts.open_orders" }, inputs: [{ namespace: "postgres://db:5432", name: "shop.public.orders_open" }] };
      expect((await t.api("POST", "/api/v1/lineage?dataProductId=reporting", reads)).body.violations).toBe(0);
      // Sales reading its own orders port from another of its products needs no access.
      expect((await t.api("PUT", "/api/dataproducts/forecast", { dataProductSpecification: "0.0.1", info: { title: "Forecast", owner: "sales" } })).status).toBe(200);
      expect((await t.api("POST", "/api/v1/lineage?dataProductId=forecast", { ...dbtEvent(run(41)), job: { namespace: "dbt", name: "forecast" } }, { key: salesKey })).body.violations).toBe(0);
      // A run that names no data product has no consumer to check.
      expect((await t.api("POST", "/api/v1/lineage", { ...dbtEvent(run(42)), job: { namespace: "dbt", name: "anonymous" } })).body.violations).toBe(0);
      expect((await violationEvents()).length).toBe(before);
    });

    it("answers the graph around a dataset, a job and a data product, bounded by depth", async () => {
      const around = await t.api("GET", `/api/v1/lineage/graph?dataset=${encodeURIComponent("postgres://db:5432/shop.public.orders")}&depth=1`);
      expect(around.status, around.text).toBe(200);
      const ids = around.body.nodes.map((n: any) => n.id);
      expect(ids).toEqual(expect.arrayContaining(["dataset:postgres://db:5432/shop.public.orders", "job:dbt/reporting.marts.daily_revenue", "dataset:bigquery/acme.reports.daily_revenue"]));
      expect(around.body.nodes.find((n: any) => n.id === "dataset:postgres://db:5432/shop.public.orders")).toMatchObject({ type: "dataset", dataProductId: "orders", outputPortId: "pg" });
      expect(around.body.nodes.find((n: any) => n.id === "dataset:bigquery/acme.reports.daily_revenue")).toMatchObject({ dataProductId: "reporting", outputPortId: "bq" });
      expect(around.body.edges).toEqual(expect.arrayContaining([
        { source: "dataset:postgres://db:5432/shop.public.orders", target: "job:dbt/reporting.marts.daily_revenue" },
        { source: "job:dbt/reporting.marts.daily_revenue", target: "dataset:bigquery/acme.reports.daily_revenue" },
      ]));
      expect(around.body.truncated).toBe(false);
      // Depth 2 goes on from the daily revenue table to the Spark job that also writes it, and its S3 input.
      const deeper = await t.api("GET", `/api/v1/lineage/graph?dataset=${encodeURIComponent("postgres://db:5432/shop.public.orders")}&depth=2`);
      expect(deeper.body.nodes.map((n: any) => n.id)).toEqual(expect.arrayContaining(["job:spark_jobs/revenue_app.execute_insert_into_hadoop_fs_relation_command", "dataset:s3://lake//orders/2026/06/01"]));
      expect(deeper.body.nodes.find((n: any) => n.id === "dataset:s3://lake//orders/2026/06/01")).toMatchObject({ dataProductId: "orders", outputPortId: "lake" });
      const job = await t.api("GET", "/api/v1/lineage/graph?job=airflow_prod/crm_sync.load_accounts&depth=1");
      expect(job.body.nodes.map((n: any) => n.id).sort()).toEqual(["dataset:mysql://crm-db:3306/crm.accounts", "dataset:postgres://db:5432/shop.staging.accounts", "job:airflow_prod/crm_sync.load_accounts"]);
      const product = await t.api("GET", "/api/v1/lineage/graph?dataProductId=customers&depth=1");
      expect(product.body.nodes.map((n: any) => n.id)).toContain("job:airflow_prod/crm_sync.load_accounts");
      expect((await t.api("GET", "/api/v1/lineage/graph?dataProductId=nope")).status).toBe(404);
      expect((await t.api("GET", "/api/v1/lineage/graph?job=a/b&dataset=c/d")).status).toBe(400);
      expect((await t.api("GET", "/api/v1/lineage/graph?job=a/b&depth=6")).status).toBe(400);
      expect((await t.api("GET", "/api/v1/lineage/graph?job=nonamespace")).status).toBe(400);
    });

    it("draws the edges stored events carry: a deleted run takes the edges only it had, and the sweep then forgets them", async () => {
      const org = await t.createOrganization("edges");
      const as = { key: org.key };
      const pg = (name: string) => ({ namespace: "postgres://db:5432", name });
      const job = { namespace: "dbt", name: "edges.model" };
      const post = async (n: number, inputs: object[]) =>
        expect((await t.api("POST", "/api/v1/lineage", { ...dbtEvent(run(n)), job, inputs, outputs: [pg("shop.marts.model")] }, as)).status).toBe(200);
      await post(80, [pg("shop.public.orders")]);
      await post(81, [pg("shop.public.orders"), pg("shop.public.extra")]);
      const graph = async (query: string) => (await t.api("GET", `/api/v1/lineage/graph?${query}&depth=1`, undefined, as)).body;
      const extra = `dataset=${encodeURIComponent("postgres://db:5432/shop.public.extra")}`;
      // Depth 1 around the dataset: the job that reads it, and the job's other datasets.
      expect((await graph(extra)).edges).toContainEqual({ source: "dataset:postgres://db:5432/shop.public.extra", target: "job:dbt/edges.model" });
      expect((await graph("job=dbt/edges.model")).edges).toHaveLength(3);

      expect((await t.api("DELETE", `/api/v1/lineage?runId=${run(81)}`, undefined, as)).body).toEqual({ deletedCount: 1 });
      expect((await graph(extra)).edges).toEqual([]);
      const left = (await graph("job=dbt/edges.model")).edges;
      expect(left).toHaveLength(2);
      expect(left).toEqual(expect.arrayContaining([
        { source: "dataset:postgres://db:5432/shop.public.orders", target: "job:dbt/edges.model" },
        { source: "job:dbt/edges.model", target: "dataset:postgres://db:5432/shop.marts.model" },
      ]));
      // The distinct edge only run 81 carried stays stored until the sweep, which keeps the others.
      const database = openDatabase(t.database.url);
      try {
        const keys = async () => (await database.db.selectFrom("lineage_edge_keys").select("dataset_name").where("organization_id", "=", org.organizationId).orderBy("dataset_name").execute()).map((r) => r.dataset_name);
        expect(await keys()).toEqual(["shop.marts.model", "shop.public.extra", "shop.public.orders"]);
        await t.server.services.lineage.retention.sweep();
        expect(await keys()).toEqual(["shop.marts.model", "shop.public.orders"]);
      } finally {
        await database.close();
      }
    });

    it("deletes by run, by job, and a team key only what its team posted", async () => {
      const deleted = await t.api("DELETE", `/api/v1/lineage?runId=${run(2)}`);
      expect(deleted.body).toEqual({ deletedCount: 2 });
      check.answer("DELETE", "/api/v1/lineage", 200, deleted.body);
      expect((await t.api("GET", `/api/v1/lineage?runId=${run(2)}`)).body).toEqual([]);
      expect((await t.api("DELETE", "/api/v1/lineage?jobName=x")).status).toBe(400);
      expect((await t.api("DELETE", "/api/v1/lineage", undefined, { key: readKey })).status).toBe(403);
      // Analytics posted runs 22, 30 and 31; a sweeping delete by its key removes those only.
      const all = (await t.api("GET", "/api/v1/lineage")).body.length;
      const mine = await t.api("DELETE", "/api/v1/lineage", undefined, { key: analyticsKey });
      expect(mine.body.deletedCount).toBe(3);
      expect((await t.api("GET", "/api/v1/lineage")).body).toHaveLength(all - 3);
      const dbt = await t.api("DELETE", "/api/v1/lineage?jobNamespace=dbt&jobName=reporting.marts.daily_revenue");
      expect(dbt.body.deletedCount).toBeGreaterThan(0);
      expect((await t.api("GET", "/api/v1/lineage?jobNamespace=dbt&jobName=reporting.marts.daily_revenue")).body).toEqual([]);
    });

    it("leaves events past the retention to the sweep, which also removes the reads without an agreement of that time", async () => {
      const org = await t.createOrganization("retention");
      await t.api("POST", "/api/v1/lineage", sparkEvent(run(50)), { key: org.key });
      clock.advance(91 * 24 * 3600 * 1000);
      // A post deletes nothing old: that is the hourly sweep's work.
      await t.api("POST", "/api/v1/lineage", sparkEvent(run(51)), { key: org.key });
      expect((await t.api("GET", "/api/v1/lineage", undefined, { key: org.key })).body.map((e: any) => e.run.runId)).toEqual([run(50), run(51)]);
      expect((await t.api("GET", "/api/v1/lineage/violations?dataProductId=orders")).body.length).toBeGreaterThan(0);
      expect(await t.server.services.lineage.retention.sweep()).toBeGreaterThanOrEqual(2);
      expect((await t.api("GET", "/api/v1/lineage", undefined, { key: org.key })).body.map((e: any) => e.run.runId)).toEqual([run(51)]);
      expect((await t.api("GET", "/api/v1/lineage/violations?dataProductId=orders")).body).toEqual([]);
      // Another organization's events are neither seen nor touched.
      expect((await t.api("GET", `/api/v1/lineage?runId=${run(51)}`)).body).toEqual([]);
    });

    it("sweeps out old events of organizations that post nothing new", async () => {
      const org = await t.createOrganization("quiet");
      expect((await t.api("POST", "/api/v1/lineage", [sparkEvent(run(60)), sparkEvent(run(61))], { key: org.key })).status).toBe(200);
      expect(await t.server.services.lineage.retention.sweep()).toBeGreaterThanOrEqual(0);
      expect((await t.api("GET", "/api/v1/lineage", undefined, { key: org.key })).body).toHaveLength(2);
      clock.advance(91 * 24 * 3600 * 1000);
      expect(await t.server.services.lineage.retention.sweep()).toBeGreaterThanOrEqual(2);
      expect((await t.api("GET", "/api/v1/lineage", undefined, { key: org.key })).body).toEqual([]);
    });
  });
}
