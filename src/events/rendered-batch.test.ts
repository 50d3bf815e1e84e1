import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../test/helpers/server.js";
import { openDatabase } from "../platform/database/index.js";
import { envelopePartsFor } from "./log.js";
import { ascending, eventRepository } from "./repository.js";

/** Client-chosen ids that JSON must escape, or that a careless renderer would break on. */
const AWKWARD_SUBJECTS = ['say "hi"', "back\\slash", "tab\tnew\nline\rcarriage", "bell\u0001\u001f\u007f", "é ü 日本 😀", "</script>", "line\u2028sep\u2029", "'; drop table events; --"];

describe.each(DATABASES)("the feed's batches rendered by the database (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    // An address with characters JSON escapes: it reaches the database as JSON text.
    t = await startTestServer(kind, { appUrl: 'http://steward.test/a"b\\c', eventTypePrefix: "com.datamesh-manager.events" });
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
        const read = (sorted: boolean) => eventRepository.readRendered(database.db, database.dialect, t.organizationId, after, 1000, parts, sorted);
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
});

describe("the order check of a batch's positions", () => {
  it("accepts only strictly ascending lists", () => {
    for (const list of ["7", "1,2,3", "9,10", "99,100,1000", "1,5,17,230"]) expect(ascending(list), list).toBe(true);
    for (const list of ["2,1", "1,3,2", "10,9", "100,99", "5,5", "1,2,3,3"]) expect(ascending(list), list).toBe(false);
  });
});
