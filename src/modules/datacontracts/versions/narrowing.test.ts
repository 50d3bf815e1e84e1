/**
 * Narrowing that only shows in a schema format's own terms — an Avro decimal's precision, an Avro
 * fixed's size, a JSON Schema string's maxLength — is breaking like a dbt varchar(10) → varchar(5):
 * through GET /changes on stored versions, POST /changes, and the 409 of the gate.
 */
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../../test/helpers/databases.js";
import { suiteServer } from "../../../../test/helpers/suite-server.js";

const dcs09 = (version: string, type: string, specification: unknown) => ({
  dataContractSpecification: "0.9.3",
  info: { title: "Orders", version, owner: "sales" },
  schema: { type, specification: JSON.stringify(specification) },
});

const avro = (version: string, { precision = 10, size = 4 } = {}) =>
  dcs09(version, "avro", {
    type: "record",
    name: "Order",
    fields: [
      { name: "id", type: "long" },
      { name: "code", type: { type: "fixed", name: "Code", size } },
      { name: "amt", type: { type: "bytes", logicalType: "decimal", precision, scale: 2 } },
    ],
  });

const jsonSchema = (version: string, maxLength: number) =>
  dcs09(version, "jsonschema", { title: "T", type: "object", properties: { n: { type: "string", maxLength } } });

describe.each(DATABASES)("narrowing in Avro and JSON Schema contracts (%s)", (kind) => {

  const t = suiteServer(kind, { teams: { sales: "sales", marketing: "marketing" } });

  /** Stores the contract under an output port with an approved access, so a breaking change is refused. */
  async function guarded(id: string, doc: object): Promise<void> {
    expect((await t.api("PUT", `/api/datacontracts/${id}`, doc)).status).toBe(200);
    const product = await t.api("PUT", `/api/dataproducts/p-${id}`, { info: { title: id, owner: "sales" }, outputPorts: [{ id: "o", type: "postgres", dataContractId: id }] });
    expect(product.status).toBe(200);
    const access = await t.api("PUT", `/api/access/a-${id}`, { info: { purpose: "x" }, provider: { dataProductId: `p-${id}`, outputPortId: "o" }, consumer: { teamId: "marketing" } });
    expect(access.status).toBe(200);
    expect((await t.api("POST", `/api/access/a-${id}/approve`)).status).toBe(200);
  }

  /** A widening is stored and reported non-breaking; the narrowing is refused with 409, previewed as breaking, and once stored reported as breaking. */
  async function expectNarrowing(id: string, widened: object, narrowed: object, widening: object, narrowing: object): Promise<void> {
    expect((await t.api("PUT", `/api/datacontracts/${id}`, widened)).status).toBe(200);
    const wide = await t.api("GET", `/api/datacontracts/${id}/changes`);
    expect(wide.body).toMatchObject({ breaking: false, changes: [{ ...widening, breaking: false }] });

    const refused = await t.api("PUT", `/api/datacontracts/${id}`, narrowed);
    expect(refused.status).toBe(409);
    expect(refused.body.breakingChanges).toEqual(expect.arrayContaining([expect.objectContaining({ ...narrowing, breaking: true, affectedAccesses: [`a-${id}`] })]));
    const preview = await t.api("POST", `/api/datacontracts/${id}/changes`, narrowed);
    expect(preview.body).toMatchObject({ breaking: true, affectedAccesses: [{ id: `a-${id}` }] });

    expect((await t.api("PUT", `/api/datacontracts/${id}?allowBreaking=true`, narrowed)).status).toBe(200);
    const stored = await t.api("GET", `/api/datacontracts/${id}/changes`);
    expect(stored.body.breaking).toBe(true);
    expect(stored.body.changes).toEqual(expect.arrayContaining([expect.objectContaining({ ...narrowing, breaking: true })]));
  }

  it("an Avro decimal's precision: lower breaks, higher widens", async () => {
    await guarded("avro-decimal", avro("1.0.0"));
    await expectNarrowing(
      "avro-decimal",
      avro("1.1.0", { precision: 12 }),
      avro("1.2.0", { precision: 5 }),
      { path: "Order.amt", change: "type-widened" },
      { path: "Order.amt", change: "type-changed" },
    );
  });

  it("an Avro fixed's size: a smaller one breaks, and so does a larger one, since a fixed holds exactly its size", async () => {
    await guarded("avro-fixed", avro("1.0.0"));
    const larger = await t.api("POST", "/api/datacontracts/avro-fixed/changes", avro("1.1.0", { size: 6 }));
    expect(larger.body.changes).toEqual([expect.objectContaining({ path: "Order.code", change: "length-narrowed", breaking: true, before: "4..4", after: "6..6" })]);
    const refused = await t.api("PUT", "/api/datacontracts/avro-fixed", avro("1.1.0", { size: 2 }));
    expect(refused.status).toBe(409);
    expect(refused.body.breakingChanges).toEqual([expect.objectContaining({ path: "Order.code", change: "length-narrowed", before: "4..4", after: "2..2", affectedAccesses: ["a-avro-fixed"] })]);
    expect((await t.api("PUT", "/api/datacontracts/avro-fixed?allowBreaking=true", avro("1.1.0", { size: 2 }))).status).toBe(200);
    expect((await t.api("GET", "/api/datacontracts/avro-fixed/changes")).body).toMatchObject({ breaking: true, changes: [{ path: "Order.code", change: "length-narrowed" }] });
  });

  it("a JSON Schema string's maxLength: shorter breaks, longer widens", async () => {
    await guarded("json-length", jsonSchema("1.0.0", 10));
    await expectNarrowing(
      "json-length",
      jsonSchema("1.1.0", 20),
      jsonSchema("1.2.0", 5),
      { path: "T.n", change: "length-widened", before: "0..10", after: "0..20" },
      { path: "T.n", change: "length-narrowed", before: "0..20", after: "0..5" },
    );
  });
});
