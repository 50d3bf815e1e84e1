/**
 * Reads of one document made together (`DocumentReads`): what each caller gets must be what a read
 * of its own would have given it, whoever else asked in the same turn.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteDatabase } from "../../../test/helpers/suite-database.js";
import { DocumentReads, READ_CHUNK } from "./document-reads.js";
import { resourceRepository, type ResourceKind } from "./resource-repository.js";

const AT = "2026-01-01T00:00:00.000Z";

/** Ids a hostile client may choose: every one of them is a single path segment Steward accepts. */
const ODD_IDS = ['quo"te', "back\\slash", "{brace}", "com,ma", "null", "NULL", " spaced ", "ünï", '["json"]', "%22"];

describe.each(DATABASES)("reads of one document made together (%s)", (kind) => {
  const database = suiteDatabase(kind);

  async function put(organizationId: string, resourceKind: ResourceKind, id: string, doc: Record<string, unknown>) {
    const json = JSON.stringify({ id, ...doc });
    await resourceRepository.insert(database.db, organizationId, resourceKind, id, { title: id, ownerTeamId: null, status: null, searchText: id, json }, AT);
  }

  /**
   * Reads made together, each statement they send counted; with `byDialect`, made together only
   * where `DocumentReads` decides so by default.
   */
  function counted({ byDialect = false } = {}) {
    const statements: string[][] = [];
    const read: typeof resourceRepository.getMany = (ex, dialect, organizationId, resourceKind, ids) => {
      statements.push([...ids]);
      return resourceRepository.getMany(ex, dialect, organizationId, resourceKind, ids);
    };
    const reads = new DocumentReads(database, byDialect ? { read } : { read, coalesce: true });
    return { reads, statements };
  }

  beforeAll(async () => {
    for (const org of ["north", "south"]) await database.db.insertInto("organizations").values({ id: org, name: org, created_at: AT }).execute();
    for (let i = 0; i < 40; i++) await put("north", "asset", `a${i}`, { n: i });
    await put("north", "team", "shared", { owner: "north's team" });
    await put("south", "team", "shared", { owner: "south's team" });
    await put("north", "dataproduct", "shared", { product: "north's product" });
    for (const id of ODD_IDS) await put("north", "team", id, { odd: id });
  });

  it("sends the reads asked for in one turn as one statement, and answers each with its own document or none", async () => {
    const { reads, statements } = counted();
    const [a, b, missing] = await Promise.all([reads.get("north", "asset", "a1"), reads.get("north", "asset", "a2"), reads.get("north", "asset", "nope")]);
    expect(statements).toEqual([["a1", "a2", "nope"]]);
    expect(a?.doc).toEqual({ id: "a1", n: 1 });
    expect(b?.doc).toEqual({ id: "a2", n: 2 });
    expect(missing).toBeUndefined();
  });

  it("never answers a read with another organization's or another kind's document of the same id", async () => {
    const { reads, statements } = counted();
    const [north, south, product, nowhere] = await Promise.all([
      reads.get("north", "team", "shared"),
      reads.get("south", "team", "shared"),
      reads.get("north", "dataproduct", "shared"),
      reads.get("south", "dataproduct", "shared"),
    ]);
    expect(north?.doc).toEqual({ id: "shared", owner: "north's team" });
    expect(south?.doc).toEqual({ id: "shared", owner: "south's team" });
    expect(product?.doc).toEqual({ id: "shared", product: "north's product" });
    expect(nowhere).toBeUndefined();
    // One statement per organization and kind.
    expect(statements).toHaveLength(4);
  });

  it("gives every caller of the same id an object of its own", async () => {
    const { reads, statements } = counted();
    const [first, second] = await Promise.all([reads.get<{ n: number }>("north", "asset", "a3"), reads.get<{ n: number }>("north", "asset", "a3")]);
    expect(statements).toEqual([["a3"]]);
    expect(first).not.toBe(second);
    first!.doc.n = 99;
    expect(second!.doc.n).toBe(3);
  });

  it("matches ids that quoting, arrays or JSON could confuse, each to its own document", async () => {
    const { reads, statements } = counted();
    const found = await Promise.all(ODD_IDS.map((id) => reads.get<{ odd: string }>("north", "team", id)));
    expect(found.map((doc) => doc?.doc.odd)).toEqual(ODD_IDS);
    expect(statements).toHaveLength(1);
  });

  it(`sends at most ${READ_CHUNK} ids per statement, and answers every read`, async () => {
    const { reads, statements } = counted();
    const ids = Array.from({ length: 40 }, (_, i) => `a${i}`);
    const found = await Promise.all(ids.map((id) => reads.get<{ n: number }>("north", "asset", id)));
    expect(found.map((doc) => doc?.doc.n)).toEqual(ids.map((_, i) => i));
    // Full statements of READ_CHUNK ids and one of the rest, worked out here rather than by the
    // slicing helper the reads use, so a fault in that helper cannot pass for the expected sizes.
    const sizes = Array.from({ length: Math.ceil(ids.length / READ_CHUNK) }, (_, i) => Math.min(READ_CHUNK, ids.length - i * READ_CHUNK));
    expect(statements.map((s) => s.length)).toEqual(sizes);
    expect(statements).toHaveLength(Math.ceil(ids.length / READ_CHUNK));
  });

  it("sends what is asked for in a later turn in a statement of its own", async () => {
    const { reads, statements } = counted();
    await reads.get("north", "asset", "a4");
    await reads.get("north", "asset", "a5");
    expect(statements).toEqual([["a4"], ["a5"]]);
  });

  it("sees what was committed before the read was asked for", async () => {
    const { reads } = counted();
    // Asked for before it existed: nothing of that answer may be remembered for the next read.
    expect(await reads.get("north", "asset", "fresh")).toBeUndefined();
    await put("north", "asset", "fresh", { n: -1 });
    expect((await reads.get("north", "asset", "fresh"))?.doc).toEqual({ id: "fresh", n: -1 });
  });

  it("fails only the reads of a statement that failed", async () => {
    const reads = new DocumentReads(database, {
      coalesce: true,
      read: (ex, dialect, organizationId, resourceKind, ids) =>
        organizationId === "south" ? Promise.reject(new Error("connection lost")) : resourceRepository.getMany(ex, dialect, organizationId, resourceKind, ids),
    });
    const [north, south] = await Promise.allSettled([reads.get("north", "team", "shared"), reads.get("south", "team", "shared")]);
    expect(north).toMatchObject({ status: "fulfilled", value: { id: "shared" } });
    expect(south).toMatchObject({ status: "rejected", reason: new Error("connection lost") });
  });

  it("makes reads together by default on PostgreSQL only, where each is a round trip", async () => {
    const { reads, statements } = counted({ byDialect: true });
    const found = await Promise.all([reads.get("north", "asset", "a6"), reads.get("north", "asset", "a7")]);
    expect(found.map((doc) => doc?.id)).toEqual(["a6", "a7"]);
    expect(statements).toEqual(kind === "postgres" ? [["a6", "a7"]] : []);
  });
});
