import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { accessRepository } from "../access/repository.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import { DRY_RUN_MAX_FINDINGS, DRY_RUN_MAX_ROWS } from "./dry-run.js";

/**
 * A dry run over one more data contract and one more open access than it reads
 * (docs/policies.md, "Trying a rule"): what it judges, in which order it lists what it finds,
 * and what it counts. The copies are written straight through the repositories.
 */
describe.each(DATABASES)("a dry run at its limits (%s)", (kind) => {
  let t: TestServer;
  /** The ids ending in 77 among the first DRY_RUN_MAX_ROWS, in order. */
  const sevenSeven = (prefix: string) => Array.from({ length: DRY_RUN_MAX_ROWS / 100 }, (_, i) => `${prefix}${i * 100 + 77}`);

  beforeAll(async () => {
    t = await startTestServer(kind);
    for (const team of ["sales", "marketing"]) expect((await t.api("PUT", `/api/teams/${team}`, { name: team })).status).toBe(200);
    const contract = { apiVersion: "v3.1.0", kind: "DataContract", id: "c0", version: "1.0.0", status: "active", team: { name: "sales" } };
    expect((await t.api("PUT", "/api/datacontracts/c0", contract)).status).toBe(200);
    const product = { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pii", type: "postgres", containsPii: true, dataContractId: "c0" }] };
    expect((await t.api("PUT", "/api/dataproducts/orders", product)).status).toBe(200);
    const access = await t.api("PUT", "/api/access/a0", { info: { purpose: "x" }, provider: { dataProductId: "orders", outputPortId: "pii" }, consumer: { teamId: "marketing" } });
    expect(access.status, access.text).toBe(200);

    const { db } = t.server.services.database;
    const stored = (await accessRepository.get(db, t.organizationId, "a0"))!;
    const at = new Date().toISOString();
    await db.transaction().execute(async (trx) => {
      for (let i = 1; i <= DRY_RUN_MAX_ROWS; i++) {
        const json = JSON.stringify({ ...contract, id: `c${i}` });
        await resourceRepository.insert(trx, t.organizationId, "datacontract", `c${i}`, { title: null, ownerTeamId: "sales", status: "active", searchText: `c${i}`, json }, at);
        await accessRepository.insert(trx, { ...stored, id: `a${i}`, doc: { ...stored.doc, id: `a${i}` } });
      }
    });
  }, 300_000);
  afterAll(() => t?.close());

  const tryRule = async (rule: Record<string, unknown>) => {
    const res = await t.api("POST", "/api/policies/probe/evaluate", { rule });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  it("judges the first 10,000 data contracts and says more exist", async () => {
    const run = await tryRule({ condition: "contract.id.endsWith('77') || contract.id == 'c10000'", effect: "warn", gates: ["contract.publish"] });
    expect(run.evaluated).toEqual({ datacontracts: DRY_RUN_MAX_ROWS, dataproducts: 0, accesses: 0 });
    expect(run.truncated).toBe(true);
    expect(run.counts).toEqual({ deny: 0, warn: 100, hold: 0 });
    expect(run.findings).toEqual(sevenSeven("c").map((id) => ({ gate: "contract.publish", kind: "datacontract", id, outcome: "warn", read: { "contract.id": id } })));
  });

  it("judges the first 10,000 open accesses and lists what it finds under each gate of the rule, gate by gate", async () => {
    const run = await tryRule({ condition: "access.id.endsWith('77') || access.id == 'a10000'", effect: "deny", gates: ["access.request", "access.approve"] });
    expect(run.evaluated).toEqual({ datacontracts: 0, dataproducts: 0, accesses: DRY_RUN_MAX_ROWS });
    expect(run.truncated).toBe(true);
    expect(run.counts).toEqual({ deny: 200, warn: 0, hold: 0 });
    const found = (gate: string) => sevenSeven("a").map((id) => ({ gate, kind: "access", id, outcome: "deny", read: { "access.id": id } }));
    expect(run.findings).toEqual([...found("access.request"), ...found("access.approve")]);
  });

  it("counts every match but lists the first 500, data contracts before accesses, each with the values it read", async () => {
    const run = await tryRule({ condition: "contract.id.endsWith('77') || contract.id == 'c0'", effect: "warn", gates: ["contract.publish", "access.request", "access.approve"] });
    expect(run.evaluated).toEqual({ datacontracts: DRY_RUN_MAX_ROWS, dataproducts: 0, accesses: DRY_RUN_MAX_ROWS });
    // Every access's contract is c0: each access matches, at both gates.
    expect(run.counts).toEqual({ deny: 0, warn: 101 + 2 * DRY_RUN_MAX_ROWS, hold: 0 });
    const contracts = ["c0", ...sevenSeven("c")].map((id) => ({ gate: "contract.publish", kind: "datacontract", id, outcome: "warn", read: { "contract.id": id } }));
    const accesses = Array.from({ length: DRY_RUN_MAX_FINDINGS - 101 }, (_, i) => ({ gate: "access.request", kind: "access", id: `a${i}`, outcome: "warn", read: { "contract.id": "c0" } }));
    expect(run.findings).toEqual([...contracts, ...accesses]);
  });

  it("gives a rule at an access gate each variable it reads as the gate does", async () => {
    const condition =
      "access.id == 'a5' && access.info.purpose == 'x' && product.info.title == 'Orders' && port.containsPii && contract.id == 'c0' && consumer.type == 'team' && consumer.teamId == 'marketing' && requester.scope == 'organization' && size(now) > 0";
    const run = await tryRule({ condition, effect: "warn", gates: ["access.request"] });
    expect(run.counts.warn).toBe(1);
    expect(run.findings).toHaveLength(1);
    expect(run.findings[0].id).toBe("a5");
    expect(run.findings[0].read).toMatchObject({
      "access.id": "a5",
      "access.info.purpose": "x",
      "product.info.title": "Orders",
      "port.containsPii": true,
      "contract.id": "c0",
      "consumer.type": "team",
      "consumer.teamId": "marketing",
      "requester.scope": "organization",
    });
    expect(typeof run.findings[0].read.now).toBe("string");
  });
});
