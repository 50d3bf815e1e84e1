/**
 * Full batches stored as rendered (batch-sealer.ts): served byte for byte as the rows render,
 * never for another rendering, and a consumer that starts anywhere still reads every event once.
 */
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { loggedConnection } from "../../../test/helpers/recorded-queries.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { openDatabase } from "../../platform/database/index.js";
import { startServer } from "../../server.js";
import { renderingKey } from "./batch-sealer.js";
import { envelopePartsFor, EventLog, MAX_BATCH } from "../log.js";
import type { EventRow } from "../repository.js";
import { storedBatchRepository } from "./stored-batch-repository.js";

describe.each(DATABASES)("the feed's stored batches (%s)", (kind) => {
  /** Every event of the organization, oldest first. */
  let rows: EventRow[];

  const stored = () =>
    t.server.services.database.db
      .selectFrom("event_batches")
      .select(["after_seq", "last_seq", "last_id", "count", "parts"])
      .where("organization_id", "=", t.organizationId)
      .orderBy("after_seq")
      .execute();
  const allRows = async () => {
    const all: EventRow[] = [];
    for (let page = await t.server.services.events.readAfter(t.organizationId, 0); page.length > 0; page = await t.server.services.events.readAfter(t.organizationId, all.at(-1)!.seq)) {
      all.push(...page);
    }
    return all;
  };
  /** The feed's answers over HTTP from `lastEventId` to the end, as text. */
  const readFeed = async (lastEventId?: string) => {
    const texts: string[] = [];
    for (let last = lastEventId; ; ) {
      const answer = await t.api("GET", `/api/events${last ? `?lastEventId=${last}` : ""}`);
      expect(answer.status).toBe(200);
      if (answer.body.length === 0) return texts;
      texts.push(answer.text);
      last = answer.body.at(-1).id;
    }
  };

  const t = suiteServer(kind, {
    setup: async (t) => {
      // 2,500 events in changes of 100, as writers append them: two full batches and half of one.
      for (let change = 0; change < 25; change++) {
        await t.server.services.events.transaction({ organizationId: t.organizationId }, async (_trx, emit) => {
          for (let i = 0; i < 100; i++) emit("TeamUpdatedEvent", `team-${change}-${i}`);
        });
      }
      await t.server.services.events.sealer.seal(t.organizationId);
      rows = await allRows();
    },
  });

  it("stores each batch once it is full, and serves it without reading the events", async () => {
    expect(rows).toHaveLength(2500);
    expect(await stored()).toMatchObject([
      { after_seq: 0, last_seq: rows[999].seq, last_id: rows[999].id, count: MAX_BATCH },
      { after_seq: rows[999].seq, last_seq: rows[1999].seq, last_id: rows[1999].id, count: MAX_BATCH },
    ]);
    // Byte for byte what the rows render, the stored batches and the half one after them.
    const { events } = t.server.services;
    expect(await readFeed()).toEqual([events.renderBatch(rows.slice(0, 1000)), events.renderBatch(rows.slice(1000, 2000)), events.renderBatch(rows.slice(2000))]);

    const { db, statements } = loggedConnection(kind, t.database.url, 2);
    try {
      const { database, config, clock } = t.server.services;
      const log = new EventLog({ ...database, db }, config, clock);
      expect((await log.readBatch(t.organizationId, rows[999].seq)).body.toString()).toBe(events.renderBatch(rows.slice(1000, 2000)));
      expect(statements.filter((text) => /from events\b/.test(text)), "a stored batch was rendered from the events").toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it("answers a consumer that starts inside a stored batch with the rest of it, and then with stored batches", async () => {
    const texts = await readFeed(rows[299].id);
    expect(texts.map((text) => JSON.parse(text).length)).toEqual([700, 1000, 500]);
    expect(texts[1]).toBe(t.server.services.events.renderBatch(rows.slice(1000, 2000)));
    expect(texts.flatMap((text) => JSON.parse(text).map((e: { id: string }) => e.id))).toEqual(rows.slice(300).map((r) => r.id));
  });

  it("serves no batch stored for another APP_URL, and a process with that APP_URL stores its own in its place", async () => {
    const { database, config, clock, events } = t.server.services;
    const otherConfig = { ...config, appUrl: "http://elsewhere.test" };
    const other = new EventLog(database, otherConfig, clock);
    const otherBatch = await other.readBatch(t.organizationId, 0);
    expect(otherBatch.body.toString()).toBe(other.renderBatch(rows.slice(0, 1000)));
    expect(otherBatch.body.toString()).toContain('"source":"http://elsewhere.test"');

    await other.sealer.seal(t.organizationId);
    const otherRendering = renderingKey(envelopePartsFor(otherConfig), MAX_BATCH);
    expect((await stored()).map((batch) => batch.parts)).toEqual([otherRendering, otherRendering]);
    // This process's batches are gone from the store: it renders them from the rows, with its own address.
    expect((await events.readBatch(t.organizationId, 0)).body.toString()).toBe(events.renderBatch(rows.slice(0, 1000)));

    // Only the second batch stored again this process's way: the events before it are read up to
    // where it starts, and the consumer's next request is for it.
    await storedBatchRepository.store(database.db, database.dialect, t.organizationId, renderingKey(envelopePartsFor(config), MAX_BATCH), rows[999].seq, await events.readBatch(t.organizationId, rows[999].seq));
    const texts = await readFeed(rows[499].id);
    expect(texts.map((text) => JSON.parse(text).length)).toEqual([500, 1000, 500]);
    expect(texts.join("")).toBe(events.renderBatch(rows.slice(500, 1000)) + events.renderBatch(rows.slice(1000, 2000)) + events.renderBatch(rows.slice(2000)));
    expect(await readFeed()).toEqual([events.renderBatch(rows.slice(0, 1000)), events.renderBatch(rows.slice(1000, 2000)), events.renderBatch(rows.slice(2000))]);
  });

  it("stores each batch once when two processes store at the same time", async () => {
    const { database } = t.server.services;
    await database.db.deleteFrom("event_batches").where("organization_id", "=", t.organizationId).execute();
    const [a, b] = [openDatabase(t.database.url), openDatabase(t.database.url)];
    try {
      const logs = [a, b].map((handle) => new EventLog(handle, t.server.services.config, t.server.services.clock));
      await Promise.all(logs.map((log) => log.sealer.seal(t.organizationId)));
      expect((await stored()).map((batch) => batch.last_id)).toEqual([rows[999].id, rows[1999].id]);
      expect(await readFeed()).toEqual([0, 1000, 2000].map((from) => t.server.services.events.renderBatch(rows.slice(from, from + 1000))));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("stores, when a process starts, the full batches of events appended while none stored them", async () => {
    const { database, config } = t.server.services;
    await database.db.deleteFrom("event_batches").where("organization_id", "=", t.organizationId).execute();
    const second = await startServer(config, { logger: false });
    try {
      for (let waited = 0; (await stored()).length < 2 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await stored()).map((batch) => batch.last_id)).toEqual([rows[999].id, rows[1999].id]);
    } finally {
      await second.close();
    }
  });
});
