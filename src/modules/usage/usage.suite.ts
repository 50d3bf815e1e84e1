import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { createTeamKey, suiteServer } from "../../../test/helpers/suite-server.js";
import { ManualClock } from "../../platform/clock.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";
import { referenceExport, sdkExport, sdkSpan } from "./usage.fixtures.js";

const DAY = 24 * 3600 * 1000;

/** The usage tests, with `check` holding answers against the reference description (test/helpers/checks.ts). */
export function usageTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`usage traces (%s)${check.label}`, (kind) => {
    let analyticsKey: string;
    let readKey: string;
    const clock = new ManualClock("2026-06-01T09:00:00.000Z");

    const t = suiteServer(kind, {
      clock,
      teams: { sales: "sales", analytics: "analytics", crm: "crm" },
      setup: async (t) => {
        const contract = await t.api("PUT", "/api/datacontracts/orders-v1", { apiVersion: "v3.1.0", kind: "DataContract", id: "orders-v1", name: "Orders", version: "1.0.0", status: "active", team: { name: "sales" } });
        expect(contract.status, contract.text).toBe(200);
        const product = (title: string, owner: string, outputPorts: object[]) => ({ dataProductSpecification: "0.0.1", info: { title, owner, status: "active" }, outputPorts });
        for (const [id, doc] of [
          ["orders", product("Orders", "sales", [{ id: "pg", type: "postgres", dataContractId: "orders-v1" }, { id: "open", type: "postgres", autoApprove: true }])],
          ["reporting", product("Reporting", "analytics", [])],
          ["customers", product("Customers", "crm", [])],
        ] as const) {
          const res = await t.api("PUT", `/api/dataproducts/${id}`, doc);
          expect(res.status, res.text).toBe(200);
        }
        const access = await t.api("PUT", "/api/access/reporting-open", { info: { purpose: "Revenue" }, provider: { dataProductId: "orders", outputPortId: "open" }, consumer: { dataProductId: "reporting" } });
        expect(access.status, access.text).toBeLessThan(300);
        expect(access.body.info.active).toBe(true);
        analyticsKey = await createTeamKey(t, "analytics", "a");
        readKey = (await t.api("POST", "/api/api-keys", { displayName: "r", scope: "organization_read" })).body.key;
      },
    });

    const violationEvents = async () => ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.type.endsWith(".AccessViolationDetectedEvent"));
    const spansOf = (body: any) => body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans));

    it("keeps the spans of an SDK export that use a product, answers them back in the reference shape, and rejects the rest with partialSuccess", async () => {
      const used = sdkSpan({ attributes: { "outputport.id": "open", "consumer.dataproduct.id": "reporting" } });
      const other = sdkSpan({ attributes: { "outputport.id": "open" } });
      const body = sdkExport("reporting-dashboard", [used, other], { "dataproduct.id": "orders" });
      // A resource of spans that use no data product: not usage.
      body.resourceSpans.push(sdkExport("web-shop", [sdkSpan()]).resourceSpans[0]!);
      const res = await t.api("POST", "/api/v1/traces", body);
      expect(res.status, res.text).toBe(200);
      expect(res.body.partialSuccess.rejectedSpans).toBe(1);
      expect(res.body.partialSuccess.errorMessage).toMatch(/resourceSpans\[1\]\.scopeSpans\[0\]\.spans\[0\] names no dataproduct\.id/);
      const listed = await t.api("GET", "/api/v1/traces?dataProductId=orders");
      expect(listed.status).toBe(200);
      // Answered in the reference description's shape: the exporter's numeric kind as its name, its
      // string nanoseconds and integer values as JSON numbers of the same digits; the rest as sent.
      check.answer("GET", "/api/v1/traces", 200, listed.body);
      const answered = (span: ReturnType<typeof sdkSpan>) => ({
        ...span,
        kind: "SPAN_KIND_CLIENT",
        startTimeUnixNano: Number(span.startTimeUnixNano),
        endTimeUnixNano: Number(span.endTimeUnixNano),
        attributes: span.attributes.map((a) => ("intValue" in a.value ? { ...a, value: { intValue: Number(a.value.intValue) } } : a)),
      });
      expect(listed.text).toContain(`"startTimeUnixNano":${used.startTimeUnixNano}`);
      expect(listed.text).toContain(`{"intValue":1523}`);
      // Spans of one resource and scope come back together, as sent.
      expect(listed.body.resourceSpans).toHaveLength(1);
      expect(listed.body.resourceSpans[0].resource).toEqual(body.resourceSpans[0].resource);
      expect(listed.body.resourceSpans[0].scopeSpans[0].scope).toEqual({ name: "usage", version: "1.0.0" });
      expect(spansOf(listed.body)).toEqual([answered(used), answered(other)]);
      expect(spansOf((await t.api("GET", "/api/v1/traces?outputPortId=pg")).body)).toEqual([]);
      expect(spansOf((await t.api("GET", "/api/v1/traces?scopeName=usage&outputPortId=open")).body)).toHaveLength(2);
    });

    it("takes the reference product's shape with an access.id, and keeps a span sent again once", async () => {
      const res = await t.api("POST", "/api/v1/traces", referenceExport("reporting-open"));
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({});
      expect((await t.api("POST", "/api/v1/traces", referenceExport("reporting-open"))).body).toEqual({});
      const listed = await t.api("GET", "/api/v1/traces?accessId=reporting-open");
      check.answer("GET", "/api/v1/traces", 200, listed.body);
      expect(spansOf(listed.body).map((s: any) => s.spanId)).toEqual(["span001"]);
      // The access's consumer is who used it.
      const summary = await t.api("GET", "/api/access/reporting-open/usage");
      expect(summary.status).toBe(200);
      expect(summary.body).toEqual({ count: 1, consumers: [{ type: "dataProduct", id: "reporting", count: 1, lastUsedAt: "2026-06-01T08:00:00.000Z" }] });
      // A port the access is not to, or an access that does not exist: rejected.
      const elsewhere = referenceExport("reporting-open");
      elsewhere.resourceSpans[0]!.resource.attributes[2] = { key: "outputport.name", value: { stringValue: "pg" } };
      expect((await t.api("POST", "/api/v1/traces", elsewhere)).body.partialSuccess.errorMessage).toMatch(/access 'reporting-open' is to output port 'open', not 'pg'/);
      expect(await t.api("POST", "/api/v1/traces", referenceExport("nope")).then((r) => r.body.partialSuccess.errorMessage)).toMatch(/access\.id 'nope' names no access/);
    });

    it("summarizes who used a product and an access, how often and when last", async () => {
      const at = (start: string, attributes: Record<string, string>) => sdkSpan({ start, attributes: { "dataproduct.id": "orders", ...attributes } });
      const res = await t.api("POST", "/api/v1/traces", sdkExport("crm-sync", [
        at("2026-06-01T07:00:00.000Z", { "consumer.dataproduct.id": "customers" }),
        at("2026-06-01T07:30:00.000Z", { "consumer.dataproduct.id": "customers" }),
        at("2026-05-31T07:00:00.000Z", { "access.id": "reporting-open" }),
        at("2026-05-30T07:00:00.000Z", {}),
      ]));
      expect(res.body, res.text).toEqual({});
      const product = await t.api("GET", "/api/dataproducts/orders/usage");
      expect(product.status).toBe(200);
      const byId = Object.fromEntries(product.body.consumers.map((c: any) => [`${c.type}:${c.id}`, c]));
      expect(byId["dataProduct:customers"]).toEqual({ type: "dataProduct", id: "customers", count: 2, lastUsedAt: "2026-06-01T07:30:00.000Z" });
      // The access names its consumer; a span that names none is its service's.
      expect(byId["dataProduct:reporting"].count).toBe(3);
      expect(byId["service:crm-sync"]).toEqual({ type: "service", id: "crm-sync", count: 1, lastUsedAt: "2026-05-30T07:00:00.000Z" });
      expect(product.body.count).toBe(7);
      expect(product.body.consumers[0].lastUsedAt >= product.body.consumers[1].lastUsedAt).toBe(true);
      const access = await t.api("GET", "/api/access/reporting-open/usage");
      expect(access.body).toEqual({ count: 2, consumers: [{ type: "dataProduct", id: "reporting", count: 2, lastUsedAt: "2026-06-01T08:00:00.000Z" }] });
      expect((await t.api("GET", "/api/dataproducts/nope/usage")).status).toBe(404);
      expect((await t.api("GET", "/api/access/nope/usage")).status).toBe(404);
      // The time window and paging of the listing.
      expect(spansOf((await t.api("GET", "/api/v1/traces?dataProductId=orders&since=2026-05-30T00:00:00Z&until=2026-06-01T00:00:00Z")).body)).toHaveLength(2);
      const first = await t.api("GET", "/api/v1/traces?dataProductId=orders&pageSize=2");
      expect(spansOf(first.body)).toHaveLength(2);
      expect(first.headers.get("link")).toContain("p=1");
      expect((await t.api("GET", "/api/v1/traces?since=yesterday")).status).toBe(400);
    });

    it("raises AccessViolationDetectedEvent for a use of a port without an active access, once per consumer, service, port and day", async () => {
      const before = (await violationEvents()).length;
      const use = (consumer: Record<string, string>) => sdkExport("bi-tool", [sdkSpan({ attributes: { "dataproduct.id": "orders", "outputport.id": "pg", ...consumer } })]);
      expect((await t.api("POST", "/api/v1/traces", use({ "consumer.team.id": "crm" }))).body).toEqual({});
      const raised = (await violationEvents()).slice(before);
      expect(raised).toHaveLength(1);
      expect(raised[0].subject).toBe("orders");
      expect(raised[0].data).toMatchObject({ outputPortId: "pg", violation: { consumerDataProductId: null, consumerTeamId: "crm", span: { serviceName: "bi-tool" } } });
      // The same consumer again the same day: once.
      await t.api("POST", "/api/v1/traces", use({ "consumer.team.id": "crm" }));
      expect(await violationEvents()).toHaveLength(before + 1);
      // Under an active access, on the consumer's own team's product, or with no consumer named: nothing.
      await t.api("POST", "/api/v1/traces", sdkExport("bi-tool", [sdkSpan({ attributes: { "dataproduct.id": "orders", "outputport.id": "open", "consumer.dataproduct.id": "reporting" } })]));
      await t.api("POST", "/api/v1/traces", use({ "consumer.team.id": "sales" }));
      await t.api("POST", "/api/v1/traces", use({}));
      expect(await violationEvents()).toHaveLength(before + 1);
      // A data product as consumer, and the next day the same use again.
      await t.api("POST", "/api/v1/traces", use({ "consumer.dataproduct.id": "customers" }));
      expect((await violationEvents()).at(-1).data.violation).toMatchObject({ consumerDataProductId: "customers", consumerTeamId: "crm" });
      clock.advance(DAY);
      await t.api("POST", "/api/v1/traces", use({ "consumer.team.id": "crm" }));
      expect(await violationEvents()).toHaveLength(before + 3);
      // The provider reads them back, newest first, in the shape of lineage's reads without an
      // agreement; so does any key of the organization, and no other organization.
      const listed = await t.api("GET", "/api/v1/usage/violations?dataProductId=orders", undefined, { key: analyticsKey });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body).toHaveLength(3);
      expect(listed.body[0]).toMatchObject({ dataProductId: "orders", outputPortId: "pg", day: "2026-06-02", consumerType: "team", consumerDataProductId: null, consumerTeamId: "crm", span: { serviceName: "bi-tool" } });
      expect(listed.body).toContainEqual(expect.objectContaining({ day: "2026-06-01", consumerType: "dataProduct", consumerDataProductId: "customers", consumerTeamId: "crm" }));
      expect((await t.api("GET", "/api/v1/usage/violations?dataProductId=reporting", undefined, { key: readKey })).body).toEqual([]);
      const unknown = await t.api("GET", "/api/v1/usage/violations?dataProductId=nope");
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect((await t.api("GET", "/api/v1/usage/violations")).status).toBe(400);
      const outsiders = await t.createOrganization("outsiders");
      expect((await t.api("GET", "/api/v1/usage/violations?dataProductId=orders", undefined, { key: outsiders.key })).status).toBe(404);
    });

    it("answers bodies that are no OTLP export with clear problems, and stores nothing of them", async () => {
      const count = (await t.api("GET", "/api/dataproducts/orders/usage")).body.count;
      expect((await t.api("POST", "/api/v1/traces", "just text")).status).toBe(400);
      expect((await t.api("POST", "/api/v1/traces", [])).status).toBe(400);
      const missing = await t.api("POST", "/api/v1/traces", { resourceSpans: [{ scopeSpans: [{ spans: [{ ...sdkSpan(), spanId: undefined, startTimeUnixNano: "soon" }] }] }] });
      expect(missing.status).toBe(422);
      expect(missing.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(missing.body.violations.map((v: any) => v.field)).toEqual(expect.arrayContaining(["resourceSpans[0].scopeSpans[0].spans[0].spanId", "resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano"]));
      expect((await t.api("POST", "/api/v1/traces", {})).status).toBe(422);
      const tooMany = await t.api("POST", "/api/v1/traces", sdkExport("x", Array.from({ length: 10_001 }, () => ({ traceId: "a", spanId: "b", startTimeUnixNano: "1" }))));
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.detail).toMatch(/at most 10000 spans/);
      const big = await t.api("POST", "/api/v1/traces", sdkExport("x", [sdkSpan({ attributes: { "dataproduct.id": "orders", query: "x".repeat(300_000) } })]));
      expect(big.status).toBe(422);
      const unknown = await t.api("POST", "/api/v1/traces", sdkExport("x", [
        sdkSpan({ attributes: { "dataproduct.id": "ghost" } }),
        sdkSpan({ attributes: { "dataproduct.id": "orders", "outputport.id": "nowhere" } }),
        sdkSpan({ attributes: { "outputport.id": "pg" } }),
        sdkSpan({ attributes: { "dataproduct.id": "orders", "consumer.team.id": "ghosts" } }),
      ]));
      expect(unknown.status).toBe(200);
      expect(unknown.body.partialSuccess.rejectedSpans).toBe(4);
      expect(unknown.body.partialSuccess.errorMessage).toMatch(/'ghost' is not in the catalog.*no output port 'nowhere'.*needs dataproduct\.id.*'ghosts' names no team/);
      expect((await t.api("GET", "/api/dataproducts/orders/usage")).body.count).toBe(count);
    });

    it("lets team keys report uses of their products or by their team only, and read-only keys read but not post", async () => {
      const span = (attributes: Record<string, string>) => sdkExport("x", [sdkSpan({ attributes: { "dataproduct.id": "orders", ...attributes } })]);
      expect((await t.api("POST", "/api/v1/traces", span({}), { key: readKey })).status).toBe(403);
      expect((await t.api("POST", "/api/v1/traces", span({ "consumer.team.id": "crm" }), { key: analyticsKey })).status).toBe(403);
      expect((await t.api("POST", "/api/v1/traces", span({ "consumer.dataproduct.id": "reporting" }), { key: analyticsKey })).status).toBe(200);
      expect((await t.api("GET", "/api/dataproducts/orders/usage", undefined, { key: readKey })).status).toBe(200);
      expect((await t.api("DELETE", "/api/v1/traces", undefined, { key: readKey })).status).toBe(403);
      // A team key deletes only what its team posted.
      expect((await t.api("DELETE", "/api/v1/traces", undefined, { key: analyticsKey })).body).toEqual({ deletedCount: 1 });
      const deleted = await t.api("DELETE", "/api/v1/traces?spanId=span001");
      expect(deleted.body).toEqual({ deletedCount: 1 });
      check.answer("DELETE", "/api/v1/traces", 200, deleted.body);
      expect(spansOf((await t.api("GET", "/api/v1/traces?accessId=reporting-open&scopeName=usage")).body).map((s: any) => s.spanId)).not.toContain("span001");
    });

    it("keeps each organization's usage to itself, and removes spans older than the retention", async () => {
      const org = await t.createOrganization("elsewhere");
      expect((await t.api("GET", "/api/v1/traces", undefined, { key: org.key })).body).toEqual({ resourceSpans: [] });
      expect((await t.api("GET", "/api/dataproducts/orders/usage", undefined, { key: org.key })).status).toBe(404);
      const foreign = await t.api("POST", "/api/v1/traces", referenceExport("reporting-open"), { key: org.key });
      expect(foreign.body.partialSuccess.rejectedSpans).toBe(1);
      expect((await t.api("PUT", "/api/teams/t", { name: "t" }, { key: org.key })).status).toBe(200);
      expect((await t.api("PUT", "/api/dataproducts/orders", { dataProductSpecification: "0.0.1", info: { title: "O", owner: "t" } }, { key: org.key })).status).toBe(200);
      expect((await t.api("POST", "/api/v1/traces", sdkExport("x", [sdkSpan({ attributes: { "dataproduct.id": "orders" } })]), { key: org.key })).body).toEqual({});
      expect((await t.api("GET", "/api/dataproducts/orders/usage", undefined, { key: org.key })).body.count).toBe(1);
      const ours = (await t.api("GET", "/api/dataproducts/orders/usage")).body.count;
      clock.advance(31 * DAY);
      expect((await t.api("POST", "/api/v1/traces", sdkExport("x", [sdkSpan({ attributes: { "dataproduct.id": "orders" } })]))).body).toEqual({});
      // A post deletes nothing old: the hourly sweep does, in every organization, with the uses without an agreement of that time.
      expect((await t.api("GET", "/api/dataproducts/orders/usage")).body.count).toBe(ours + 1);
      expect(ours).toBeGreaterThan(1);
      expect((await t.api("GET", "/api/v1/usage/violations?dataProductId=orders")).body.length).toBeGreaterThan(0);
      expect(await t.server.services.usage.retention.sweep()).toBeGreaterThanOrEqual(ours + 1);
      expect((await t.api("GET", "/api/dataproducts/orders/usage")).body.count).toBe(1);
      expect((await t.api("GET", "/api/dataproducts/orders/usage", undefined, { key: org.key })).body.count).toBe(0);
      expect((await t.api("GET", "/api/v1/usage/violations?dataProductId=orders")).body).toEqual([]);
    });

    it("keeps a span sent twice in one export, and then again, once", async () => {
      const org = await t.createOrganization("twice");
      expect((await t.api("PUT", "/api/teams/t", { name: "t" }, { key: org.key })).status).toBe(200);
      expect((await t.api("PUT", "/api/dataproducts/orders", { dataProductSpecification: "0.0.1", info: { title: "O", owner: "t" } }, { key: org.key })).status).toBe(200);
      const span = sdkSpan({ attributes: { "dataproduct.id": "orders" } });
      expect((await t.api("POST", "/api/v1/traces", sdkExport("x", [span, span]), { key: org.key })).body).toEqual({});
      expect((await t.api("POST", "/api/v1/traces", sdkExport("x", [span]), { key: org.key })).body).toEqual({});
      expect(spansOf((await t.api("GET", "/api/v1/traces", undefined, { key: org.key })).body).map((s: any) => s.spanId)).toEqual([span.spanId]);
      expect((await t.api("GET", "/api/dataproducts/orders/usage", undefined, { key: org.key })).body.count).toBe(1);
    });
  });
}
