import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

const odcs = (classification: Record<string, string | undefined>, roles: unknown[] = []) => ({
  apiVersion: "v3.1.0",
  kind: "DataContract",
  id: "orders-odcs",
  version: "1.0.0",
  status: "active",
  team: { name: "sales" },
  roles,
  schema: [
    {
      name: "orders",
      physicalType: "table",
      properties: Object.entries(classification).map(([name, c]) => ({ name, logicalType: "string", ...(c ? { classification: c } : {}) })),
    },
  ],
});

describe.each(DATABASES)("GET /api/access/{id}/privileges (%s)", (kind) => {

  const t = suiteServer(kind, {
    teams: { sales: "sales", marketing: "marketing" },
    setup: async (t) => {
      const contract = odcs({ id: "public", email: "confidential", card: "restricted", note: undefined }, [
        { role: "analyst", access: "read", customProperties: [{ property: "maxClassification", value: "internal" }, { property: "maskClassification", value: "confidential" }] },
      ]);
      expect((await t.api("PUT", "/api/datacontracts/orders-odcs", contract)).status).toBe(200);
      expect(
        (
          await t.api("PUT", "/api/dataproducts/orders", {
            info: { title: "Orders", owner: "sales" },
            outputPorts: [
              { id: "pg", type: "postgres", dataContractId: "orders-odcs", server: { host: "warehouse", schema: "shop", table: "orders" } },
              {
                id: "capped",
                type: "postgres",
                dataContractId: "orders-odcs",
                server: { host: "warehouse", schema: "shop", table: "orders" },
                customProperties: [{ property: "maxClassification", value: "public" }],
              },
            ],
          })
        ).status,
      ).toBe(200);
      const put = (id: string, port: string, roles?: string[]) =>
        t.api("PUT", `/api/access/${id}`, { info: { purpose: "p" }, provider: { dataProductId: "orders", outputPortId: port }, consumer: { teamId: "marketing" }, ...(roles ? { roles } : {}) });
      expect((await put("plain", "pg")).status).toBe(200);
      expect((await put("analyst", "pg", ["analyst"])).status).toBe(200);
      expect((await put("capped", "capped")).status).toBe(200);
    },
  });

  const decisions = async (id: string) => {
    const res = await t.api("GET", `/api/access/${id}/privileges`);
    expect(res.status).toBe(200);
    return Object.fromEntries(res.body.objects[0].columns.map((c: { name: string; decision: string }) => [c.name, c.decision]));
  };

  it("without roles or a ceiling grants every column of the port's table, before approval already", async () => {
    const res = await t.api("GET", "/api/access/plain/privileges");
    expect(res.body).toMatchObject({ accessId: "plain", dataContractId: "orders-odcs", dataContractVersion: "1.0.0", ceiling: { clear: "any" } });
    expect(res.body.objects).toHaveLength(1);
    expect(res.body.objects[0]).toMatchObject({ server: "warehouse", schema: "shop", table: "orders", scope: "table" });
    expect(await decisions("plain")).toEqual({ id: "granted", email: "granted", card: "granted", note: "granted" });
  });

  it("the roles the access names and the port's maxClassification decide each column", async () => {
    expect(await decisions("analyst")).toEqual({ id: "granted", email: "masked", card: "withheld", note: "granted" });
    expect(await decisions("capped")).toEqual({ id: "granted", email: "withheld", card: "withheld", note: "granted" });
  });

  it("answers the same bytes twice, and follows a contract change at once", async () => {
    const [a, b] = [await t.api("GET", "/api/access/analyst/privileges"), await t.api("GET", "/api/access/analyst/privileges")];
    expect(a.text).toBe(b.text);
    const changed = odcs({ id: "public", email: "restricted", card: "restricted", note: "confidential" }, [
      { role: "analyst", customProperties: [{ property: "maxClassification", value: "internal" }, { property: "maskClassification", value: "confidential" }] },
    ]);
    expect((await t.api("PUT", "/api/datacontracts/orders-odcs", changed)).status).toBe(200);
    expect(await decisions("analyst")).toEqual({ id: "granted", email: "withheld", card: "withheld", note: "masked" });
  });

  it("404 for an access that does not exist, as a problem", async () => {
    const res = await t.api("GET", "/api/access/nope/privileges");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
  });
});
