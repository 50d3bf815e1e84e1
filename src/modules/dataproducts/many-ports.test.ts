import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

/**
 * Products with tens of thousands of ports, as an operator who raised MAX_OUTPUT_PORTS may store:
 * more ids than one SQL statement binds on SQLite (32,766), and more problems than a JavaScript
 * call takes arguments. Each used to end in a 500, or in an answer that listed every one.
 */
describe.each(DATABASES)("data products with very many output ports (%s)", (kind) => {
  const t = suiteServer(kind, { teams: { sales: "Sales" }, overrides: { maxOutputPorts: 200_000 } });

  const product = (outputPorts: unknown[]) => ({ info: { title: "Big", owner: "sales" }, outputPorts });

  it("checks 40,000 ports naming contracts that do not exist, and lists the first 1,000 problems", async () => {
    const res = await t.api("PUT", "/api/dataproducts/big", product(Array.from({ length: 40_000 }, (_, i) => ({ id: `p${i}`, dataContractId: `c${i}` }))));
    expect(res.status).toBe(422);
    expect(res.body.violations).toHaveLength(1001);
    expect(res.body.violations[0]).toEqual({ field: "outputPorts[0].dataContractId", message: "no data contract 'c0' exists in this organization" });
    expect(res.body.violations[1000].message).toBe("39000 more problems not listed (limit 1000)");
    expect((await t.api("GET", "/api/dataproducts/big")).status).toBe(404);
  });

  it("refuses 150,000 ports with one id, with a bounded list of problems", async () => {
    const res = await t.api("PUT", "/api/dataproducts/same", product(Array.from({ length: 150_000 }, () => ({ id: "a" }))));
    expect(res.status).toBe(422);
    expect(res.body.violations).toHaveLength(1001);
    expect(res.body.violations[1000].message).toBe("148999 more problems not listed (limit 1000)");
  });

  it("stores 40,000 ports and then drops all but one of them", async () => {
    const ports = Array.from({ length: 40_000 }, (_, i) => ({ id: `p${i}` }));
    expect((await t.api("PUT", "/api/dataproducts/wide", product(ports))).status).toBe(200);
    expect((await t.api("GET", "/api/dataproducts/wide")).body.outputPorts).toHaveLength(40_000);
    const res = await t.api("PUT", "/api/dataproducts/wide", product(ports.slice(0, 1)));
    expect(res.status).toBe(200);
    expect(res.body.outputPorts).toHaveLength(1);
  });

  it("refuses to drop thousands of ports while an access uses one, and names that one", async () => {
    await t.api("PUT", "/api/teams/marketing", { name: "Marketing" });
    const ports = Array.from({ length: 40_000 }, (_, i) => ({ id: `p${i}` }));
    expect((await t.api("PUT", "/api/dataproducts/used", product(ports))).status).toBe(200);
    const access = await t.api("PUT", "/api/access/on-last-port", { info: { purpose: "Reports" }, provider: { dataProductId: "used", outputPortId: "p39999" }, consumer: { teamId: "marketing" } });
    expect(access.status).toBe(200);
    const res = await t.api("PUT", "/api/dataproducts/used", product(ports.slice(0, 1)));
    expect(res.status).toBe(409);
    expect(res.body.detail).toBe(
      "1 access request(s) still use output port(s) 'p39999' of data product 'used'. Cancel or delete them first.",
    );
  });
}, 120_000);
