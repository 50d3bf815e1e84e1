import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { fixture } from "../../../test/helpers/fixtures.js";
import type { StandardsCheck } from "../../../test/helpers/checks.js";

const yaml = { contentType: "application/yaml" };

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function productStandardTests(check: StandardsCheck): void {
  describe.each(DATABASES)(`data products in ODPS and DPS (%s)${check.label}`, (kind) => {
    const t = suiteServer(kind, {
      overrides: { maxOutputPorts: 5 },
      teams: { logistics: "logistics", marketing: "marketing" },
      setup: async (t) => {
        await t.api("PUT", "/api/datacontracts/shipments", { apiVersion: "v3.1.0", kind: "DataContract", version: "2.1.0", status: "active", team: { name: "logistics" } });
      },
    });

    const eventsOf = async (subject: string) =>
      ((await t.api("GET", "/api/events")).body as any[]).filter((e) => e.subject === subject).map((e) => [e.type.split(".").pop(), e.data.outputPortId].filter(Boolean).join(":"));

    it("stores an ODPS product sent as YAML exactly as sent, with one event per port named <name>@<version>", async () => {
      const text = fixture("odps-shipments.yaml");
      const sent = parse(text);
      check.valid("odps-json-schema-v1.0.0.json", sent);
      const res = await t.api("PUT", "/api/dataproducts/shipments-product", undefined, { raw: text, ...yaml });
      expect(res.status).toBe(200);
      const got = (await t.api("GET", "/api/dataproducts/shipments-product")).body;
      expect(got).toEqual(sent);
      expect(Object.keys(got)).toEqual(Object.keys(sent));
      expect(await eventsOf("shipments-product")).toEqual([
        "DataProductCreatedEvent",
        "OutputPortCreatedEvent:warehouse@1.0.0",
        "OutputPortCreatedEvent:warehouse@2.0.0",
        "OutputPortCreatedEvent:events@1.0.0",
      ]);
      expect((await t.api("GET", "/api/dataproducts?teamId=logistics")).body.map((p: any) => p.id)).toContain("shipments-product");
    });

    it("lets accesses name ODPS ports by <name>@<version>, or by a name with one version, and honours autoApprove", async () => {
      const request = (id: string, outputPortId: string) =>
        t.api("PUT", `/api/access/${id}`, { info: { purpose: "Dashboards" }, provider: { dataProductId: "shipments-product", outputPortId }, consumer: { teamId: "marketing" } });
      const exact = await request("a-exact", "warehouse@1.0.0");
      expect(exact.status).toBe(200);
      expect(exact.body.provider).toMatchObject({ teamId: "logistics", dataContractId: "shipments", dataContractVersion: "2.1.0" });
      expect(exact.body.info.status).toBe("requested");
      const auto = await request("a-auto", "events");
      expect(auto.status).toBe(200);
      expect(auto.body.info.status).toBe("approved");
      const ambiguous = await request("a-amb", "warehouse");
      expect(ambiguous.status).toBe(422);
      expect(ambiguous.body.violations.map((v: any) => v.field)).toEqual(["provider.outputPortId"]);
    });

    it("refuses to drop an ODPS port an access uses, also when the access named it by its bare name", async () => {
      const product = parse(fixture("odps-shipments.yaml"));
      const withoutEvents = { ...product, outputPorts: product.outputPorts.slice(0, 2) };
      const res = await t.api("PUT", "/api/dataproducts/shipments-product", withoutEvents);
      expect(res.status).toBe(409);
    });

    it("accepts an ODPS v1.1.0 product, names a port without version by its name, and reads its type as the archetype", async () => {
      const text = fixture("odps-1.1-parcels.yaml");
      const sent = parse(text);
      check.valid("odps-json-schema-v1.1.0.json", sent);
      const res = await t.api("PUT", "/api/dataproducts/parcels-product", undefined, { raw: text, ...yaml });
      expect(res.status, res.text).toBe(200);
      expect((await t.api("GET", "/api/dataproducts/parcels-product")).body).toEqual(sent);
      expect(await eventsOf("parcels-product")).toEqual(["DataProductCreatedEvent", "OutputPortCreatedEvent:live", "OutputPortCreatedEvent:warehouse@1.0.0"]);
      expect((await t.api("GET", "/api/dataproducts?archetype=sourceAligned")).body.map((p: any) => p.id)).toEqual(["parcels-product"]);
      const access = await t.api("PUT", "/api/access/a-live", { info: { purpose: "Alerts" }, provider: { dataProductId: "parcels-product", outputPortId: "live" }, consumer: { teamId: "marketing" } });
      expect(access.status, access.text).toBe(200);
      expect(access.body.info.status).toBe("approved");
      expect(access.body.provider).toMatchObject({ dataContractId: "shipments" });

      // Two ports of one name without versions cannot be told apart; 1.0 requires the version.
      const twice = { ...sent, id: "parcels-twice", outputPorts: [sent.outputPorts[0], { name: "live", type: "api" }] };
      const refused = await t.api("PUT", "/api/dataproducts/parcels-twice", twice);
      expect(refused.status).toBe(422);
      expect(refused.body.violations).toEqual(expect.arrayContaining([{ field: "outputPorts[1].name", message: expect.stringContaining("live") }]));
      const older = { apiVersion: "v1.0.0", kind: "DataProduct", status: "active", domain: "logistics", outputPorts: [{ name: "live", contractId: "shipments" }] };
      check.invalid("odps-json-schema-v1.0.0.json", { ...older, id: "parcels-10" });
      const old = await t.api("PUT", "/api/dataproducts/parcels-10", older);
      expect(old.status).toBe(422);
      expect(old.body.violations.map((v: any) => v.field)).toEqual(["outputPorts[0].version"]);
    });

    it("applies the ODPS owner rule and reports ODPS violations with paths and lines", async () => {
      const base = { apiVersion: "v1.0.0", kind: "DataProduct", status: "draft" };
      expect((await t.api("PUT", "/api/dataproducts/p-domain", { ...base, domain: "marketing" })).status).toBe(200);
      expect((await t.api("GET", "/api/dataproducts?teamId=marketing")).body.map((p: any) => p.id)).toEqual(["p-domain"]);
      const custom = await t.api("PUT", "/api/dataproducts/p-custom", { ...base, domain: "sales", customProperties: [{ property: "owner", value: "nobody" }] });
      expect(custom.body.violations).toEqual([{ field: "customProperties[0].value", message: expect.stringContaining("nobody") }]);

      const text = ["apiVersion: v1.0.0", "kind: DataProduct", "status: active", "team:", "  name: logistics", "outputPorts:", "  - name: a", "    owner: me", "  - version: 1.0.0", "    contractId: missing"].join("\n");
      const bad = await t.api("PUT", "/api/dataproducts/p-bad", undefined, { raw: text, ...yaml });
      expect(bad.status).toBe(422);
      const at = (field: string) => bad.body.violations.find((v: any) => v.field === field);
      expect(at("outputPorts[0].version")).toMatchObject({ line: 7, column: 5 });
      expect(at("outputPorts[0].owner")).toMatchObject({ line: 8, column: 12 });
      expect(at("outputPorts[1].name")).toMatchObject({ line: 9, column: 5 });
    });

    it("requires the contract a port names to exist, in both formats", async () => {
      const dps = await t.api("PUT", "/api/dataproducts/p-dps", { info: { title: "P", owner: "logistics" }, outputPorts: [{ id: "pg", dataContractId: "nope" }] });
      expect(dps.status).toBe(422);
      expect(dps.body.violations).toEqual([{ field: "outputPorts[0].dataContractId", message: expect.stringContaining("nope") }]);
      const odps = await t.api("PUT", "/api/dataproducts/p-odps", { apiVersion: "v1.0.0", kind: "DataProduct", status: "active", domain: "logistics", outputPorts: [{ name: "x", version: "1", contractId: "nope" }] });
      expect(odps.body.violations).toEqual([{ field: "outputPorts[0].contractId", message: expect.stringContaining("nope") }]);
    });

    it("refuses to delete a contract that a port or an open access uses (409), and deletes it once free", async () => {
      await t.api("PUT", "/api/datacontracts/spare", { apiVersion: "v3.1.0", kind: "DataContract", version: "1.0.0", status: "active", domain: "logistics" });
      await t.api("PUT", "/api/dataproducts/spare-product", { info: { title: "Spare", owner: "logistics" }, outputPorts: [{ id: "pg", dataContractId: "spare" }] });
      const byPort = await t.api("DELETE", "/api/datacontracts/spare");
      expect(byPort.status).toBe(409);
      expect(byPort.body.detail).toContain("spare-product/pg");

      await t.api("PUT", "/api/access/spare-access", { info: { purpose: "x" }, provider: { dataProductId: "spare-product", outputPortId: "pg" }, consumer: { teamId: "marketing" } });
      // The port moves to another contract; the access was granted under this one and still holds it.
      await t.api("PUT", "/api/dataproducts/spare-product", { info: { title: "Spare", owner: "logistics" }, outputPorts: [{ id: "pg", dataContractId: "shipments" }] });
      const byAccess = await t.api("DELETE", "/api/datacontracts/spare");
      expect(byAccess.status).toBe(409);
      expect(byAccess.body.detail).toContain("access");
      expect((await t.api("POST", "/api/access/spare-access/reject")).status).toBe(200);
      expect((await t.api("DELETE", "/api/datacontracts/spare")).status).toBe(204);
    });

    it("refuses a product past the output port limit with a 422 naming the limit", async () => {
      const ports = Array.from({ length: 6 }, (_, i) => ({ id: `p${i}` }));
      const res = await t.api("PUT", "/api/dataproducts/too-many", { info: { title: "Many", owner: "logistics" }, outputPorts: ports });
      expect(res.status).toBe(422);
      expect(res.body.violations).toEqual([{ field: "outputPorts", message: expect.stringMatching(/at most 5/) }]);
      expect((await t.api("GET", "/api/dataproducts/too-many")).status).toBe(404);
    });

    it("keeps DPS 0.0.1 products round-tripping, as JSON and as YAML", async () => {
      const text = "dataProductSpecification: 0.0.1\ninfo:\n  title: Parcels\n  owner: logistics\noutputPorts:\n  - id: pg\n    type: postgres\n    dataContractId: shipments\n    autoApprove: true\nextension:\n  kept: [1, 2]\n";
      expect((await t.api("PUT", "/api/dataproducts/parcels", undefined, { raw: text, ...yaml })).status).toBe(200);
      expect((await t.api("GET", "/api/dataproducts/parcels")).body).toEqual({ ...parse(text), id: "parcels" });
    });
  });
}
