import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../test/helpers/server.js";

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
});
