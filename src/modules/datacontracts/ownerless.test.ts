import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { createTeamKey, suiteServer } from "../../../test/helpers/suite-server.js";

/** ODCS contracts that name no owner team belong to the organization (docs/formats.md, "Owners"). */
describe.each(DATABASES)("owner-less ODCS contracts (%s)", (kind) => {
  let salesKey: string;
  const t = suiteServer(kind, { teams: { sales: "Sales", search: "Search" }, setup: async (t) => { salesKey = await createTeamKey(t, "sales"); } });

  // As the standard's own examples are written: no team, no owner property, no domain.
  const example = (apiVersion: string, extra: Record<string, unknown> = {}) => ({
    apiVersion,
    kind: "DataContract",
    id: `seller-${apiVersion}`,
    version: "1.1.0",
    status: "active",
    schema: [{ name: "tbl", properties: [{ name: "txn_ref_dt", logicalType: "date" }] }],
    ...extra,
  });
  const problem = (res: { body: { detail: string } }) => res.body.detail;

  it("accepts one from an organization key, owned by no team, and lists it", async () => {
    for (const apiVersion of ["v3.1.0", "v3.0.2"]) {
      const res = await t.api("PUT", `/api/datacontracts/seller-${apiVersion}`, example(apiVersion));
      expect(res.status, res.text).toBe(200);
    }
    // The v3.0 team is a list of members, as the standard writes it: read, and no owner.
    const v30 = example("v3.0.2", { id: "members-v3.0.2", team: [{ username: "ceastwood", role: "Data Scientist" }] });
    expect((await t.api("PUT", "/api/datacontracts/members-v3.0.2", v30)).status).toBe(200);
    expect((await t.api("GET", "/api/datacontracts?teamId=sales")).body).toEqual([]);
    expect((await t.api("GET", "/api/datacontracts")).body.map((c: { id: string }) => c.id)).toEqual(["seller-v3.1.0", "seller-v3.0.2", "members-v3.0.2"]);
  });

  it("refuses a team key's write of an owner-less contract, or of one it does not own, naming the three ways to name an owner", async () => {
    const created = await t.api("PUT", "/api/datacontracts/team-less", example("v3.1.0", { id: "team-less" }), { key: salesKey });
    const changed = await t.api("PUT", "/api/datacontracts/seller-v3.1.0", { ...example("v3.1.0"), version: "1.2.0" }, { key: salesKey });
    const takenOver = await t.api("PUT", "/api/datacontracts/seller-v3.1.0", { ...example("v3.1.0"), team: { name: "sales" } }, { key: salesKey });
    const deleted = await t.api("DELETE", "/api/datacontracts/seller-v3.1.0", undefined, { key: salesKey });
    const foreign = await t.api("PUT", "/api/datacontracts/search-owned", example("v3.1.0", { id: "search-owned", team: { name: "search" } }), { key: salesKey });
    for (const res of [created, changed, takenOver, deleted, foreign]) {
      expect(res.status, res.text).toBe(403);
      for (const way of ["`team.name`", "custom property `owner`", "`domain`"]) expect(problem(res)).toContain(way);
    }
    expect((await t.api("GET", "/api/datacontracts/team-less")).status).toBe(404);
    expect((await t.api("GET", "/api/datacontracts/seller-v3.1.0")).body.version).toBe("1.1.0");
  });

  it("lets a team key write a contract that names its team in any of the three ways", async () => {
    const ways = [{ team: { name: "sales" } }, { customProperties: [{ property: "owner", value: "sales" }] }, { domain: "sales" }];
    for (const [i, way] of ways.entries()) {
      const res = await t.api("PUT", `/api/datacontracts/owned-${i}`, example("v3.1.0", { id: `owned-${i}`, ...way }), { key: salesKey });
      expect(res.status, res.text).toBe(200);
    }
    expect((await t.api("GET", "/api/datacontracts?teamId=sales")).body).toHaveLength(3);
  });

  it("still refuses an owner that is no team, and a Data Contract Specification contract without info.owner", async () => {
    const unknown = await t.api("PUT", "/api/datacontracts/ghost", example("v3.1.0", { id: "ghost", team: { name: "ghosts" } }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.violations).toEqual([{ field: "team.name", message: expect.stringContaining("no team 'ghosts'") }]);
    const dcs = await t.api("PUT", "/api/datacontracts/dcs", { dataContractSpecification: "1.1.0", id: "dcs", info: { title: "D", version: "1.0.0" }, models: {} });
    expect(dcs.status).toBe(422);
    expect(dcs.body.violations.map((v: { field: string }) => v.field)).toContain("info.owner");
  });
});
