import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../test/helpers/server.js";
import { openDatabase } from "../platform/database/index.js";
import { loggedConnection } from "../../test/helpers/recorded-queries.js";
import { envelopePartsFor, EventLog, joinHalves } from "./log.js";
import { ascending, eventRepository, type RenderedBatch } from "./repository.js";

/** Client-chosen ids that JSON must escape, or that a careless renderer would break on. */
const AWKWARD_SUBJECTS = ['say "hi"', "back\\slash", "tab\tnew\nline\rcarriage", "bell\u0001\u001f\u007f", "é ü 日本 😀", "</script>", "line\u2028sep\u2029", "'; drop table events; --"];

describe.each(DATABASES)("the feed's batches rendered by the database (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    // An address with characters JSON escapes: it reaches the database as JSON text.
    t = await startTestServer(kind, { appUrl: 'http://steward.test/a"b\\c', eventTypePrefix: "com.datamesh-manager.events" });
    // These tests are about rendering from the rows: no full batch is stored (stored-batches.test.ts).
    await t.server.services.events.sealer.stop();
  });
  afterAll(() => t?.close());

  it("are the same text, member for member, as the envelopes rendered in JavaScript", async () => {
    const { events } = t.server.services;
    await events.transaction({ organizationId: t.organizationId, keyId: 'key "with" quotes' }, async (_trx, emit) => {
      for (const subject of AWKWARD_SUBJECTS) emit("TeamCreatedEvent", subject);
      emit("OutputPortCreatedEvent", "product", { outputPortId: 'port "one"' });
      emit("AccessProvisionedEvent", "access", { status: "provisioned\n\"quoted\"" });
      emit("DataContractUpdatedEvent", "contract", { breaking: true });
    });
    await events.transaction({ organizationId: t.organizationId, userId: "person-1" }, async (_trx, emit) => emit("TeamDeletedEvent", "gone"));

    const rows = await events.readAfter(t.organizationId, 0);
    const batch = await events.readBatch(t.organizationId, 0);
    expect(batch.count).toBe(rows.length);
    expect(batch.lastSeq).toBe(rows.at(-1)!.seq);
    expect(batch.lastId).toBe(rows.at(-1)!.id);
    expect(batch.body.toString()).toBe(events.renderBatch(rows));
    const parsed = JSON.parse(batch.body.toString()) as Array<{ subject: string; type: string; source: string; dataschema: string; principal: string }>;
    expect(parsed.slice(0, AWKWARD_SUBJECTS.length).map((e) => e.subject)).toEqual(AWKWARD_SUBJECTS);
    expect(parsed[0]).toMatchObject({
      type: "com.datamesh-manager.events.TeamCreatedEvent",
      source: 'http://steward.test/a"b\\c',
      dataschema: 'http://steward.test/a"b\\c/api/openapi.yaml#/components/schemas/TeamCreatedEvent',
      principal: 'api-key:key "with" quotes',
    });
    expect(parsed.at(-1)!.principal).toBe("user:person-1");

    // After the last event: an empty array, and the position stays put.
    const after = await events.readBatch(t.organizationId, batch.lastSeq);
    expect(after).toMatchObject({ count: 0, lastSeq: batch.lastSeq, lastId: undefined });
    expect(after.body.toString()).toBe("[]");
  });

  it("reads each batch in position order, byte for byte as the sorted read", async () => {
    const { events } = t.server.services;
    // Positions that cross 9 → 10, 99 → 100 and 999 → 1000, in changes of a few events each.
    for (let change = 0; change < 400; change++) {
      await events.transaction({ organizationId: t.organizationId }, async (_trx, emit) => {
        for (let i = 0; i < 3; i++) emit("TeamUpdatedEvent", `team-${change}-${i}`);
      });
    }
    const database = openDatabase(t.database.url);
    try {
      const parts = envelopePartsFor({ appUrl: 'http://steward.test/a"b\\c', eventTypePrefix: "com.datamesh-manager.events" });
      let batches = 0;
      for (let after = 0; ; batches++) {
        const read = (sorted: boolean) => eventRepository.readRendered(database.db, database.dialect, t.organizationId, { afterSeq: after, limit: 1000 }, parts, sorted);
        const [checked, sorted] = [await read(false), await read(true)];
        expect({ ...checked, body: checked.body.toString() }).toEqual({ ...sorted, body: sorted.body.toString() });
        expect(checked.body.toString()).toBe(events.renderBatch(await events.readAfter(t.organizationId, after)));
        if (checked.count === 0) break;
        after = checked.lastSeq;
      }
      expect(batches).toBe(2);
    } finally {
      await database.close();
    }
  });

  it("reads a batch in halves exactly as in one read, however many events are left", async () => {
    const { events } = t.server.services;
    const positions: number[] = [0];
    for (let page = await events.readAfter(t.organizationId, 0); page.length > 0; page = await events.readAfter(t.organizationId, positions.at(-1)!)) {
      for (const row of page) positions.push(row.seq);
    }
    const total = positions.length - 1;
    expect(total).toBeGreaterThan(1000);
    // Left after the position: more than a batch, between a half and a batch, exactly a half, less, none.
    for (const left of [total, 1000, 700, 501, 500, 499, 300, 1, 0]) {
      const after = positions[total - left];
      const [whole, halves] = [await events.readBatch(t.organizationId, after), await events.readBatch(t.organizationId, after, true)];
      expect({ ...halves, body: halves.body.toString() }, `${left} left`).toEqual({ ...whole, body: whole.body.toString() });
      expect(halves.count).toBe(Math.min(left, 1000));
    }
  });

  it("reads at most two batches in halves at once, and the others whole", async () => {
    const { events, database, config, clock } = t.server.services;
    await events.transaction({ organizationId: t.organizationId }, async (_trx, emit) => {
      for (let i = 0; i < 1500; i++) emit("TeamUpdatedEvent", `team-${i}`);
    });
    const { db, statements } = loggedConnection(kind, t.database.url, 10);
    try {
      const log = new EventLog({ ...database, db }, config, clock);
      const batches = await Promise.all([0, 0, 0].map(() => log.readBatch(t.organizationId, 0, true)));
      for (const batch of batches) expect(batch.body.toString()).toBe((await events.readBatch(t.organizationId, 0)).body.toString());
      // PostgreSQL: two reads for each of two batches, one for the third. SQLite reads each whole.
      expect(statements.filter((text) => /from events/.test(text))).toHaveLength(kind === "postgres" ? 5 : 3);
    } finally {
      await db.destroy();
    }
  });
});

describe("a batch joined from halves read in different snapshots", () => {
  const batch = (seqs: number[]): RenderedBatch => ({
    count: seqs.length,
    lastSeq: seqs.at(-1) ?? 0,
    lastId: seqs.length > 0 ? `id-${seqs.at(-1)}` : undefined,
    body: Buffer.from(JSON.stringify(seqs.map((seq) => ({ seq })))),
  });
  const seqs = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

  it("continues a full first half with the second", () => {
    const joined = joinHalves(batch(seqs(1, 500)), batch(seqs(501, 200)), 500);
    expect(joined).toMatchObject({ count: 700, lastSeq: 700, lastId: "id-700" });
    expect(JSON.parse(joined.body.toString())).toEqual(seqs(1, 700).map((seq) => ({ seq })));
  });

  it("drops a second half read after events the first half never saw, rather than leave a gap", () => {
    // The first read found 300 events; by the second, 400 more had committed.
    const joined = joinHalves(batch(seqs(1, 300)), batch(seqs(501, 200)), 500);
    expect(joined).toMatchObject({ count: 300, lastSeq: 300, lastId: "id-300" });
    expect(JSON.parse(joined.body.toString())).toEqual(seqs(1, 300).map((seq) => ({ seq })));
    expect(joinHalves(batch(seqs(1, 500)), batch([]), 500).body.toString()).toBe(batch(seqs(1, 500)).body.toString());
  });
});

describe("the order check of a batch's positions", () => {
  it("accepts only strictly ascending lists", () => {
    for (const list of ["7", "1,2,3", "9,10", "99,100,1000", "1,5,17,230"]) expect(ascending(list), list).toBe(true);
    for (const list of ["2,1", "1,3,2", "10,9", "100,99", "5,5", "1,2,3,3"]) expect(ascending(list), list).toBe(false);
  });
});
