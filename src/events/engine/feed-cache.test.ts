/**
 * The feed cache (FEED_CACHE_DIR): stored batches served from files with no query, byte for byte as
 * the rows render; a file that is not whole, or that the database no longer names, is never
 * served; the directory stays within its limit; and a cache that cannot be written leaves the
 * feed as it was.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { FastifyBaseLogger } from "fastify";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { allEvents, appendTeamEvents, serverWithCachedLog } from "../../../test/helpers/events.js";
import { loggedConnection } from "../../../test/helpers/recorded-queries.js";
import { ConfigError, loadConfig } from "../../platform/config.js";
import { openDatabase } from "../../platform/database/index.js";
import { FeedCache } from "./feed-cache.js";
import { EventLog, MAX_BATCH } from "../log.js";
import { StoredBatches } from "./stored-batches.js";

const ORG = "0191c2a4-0000-7000-8000-000000000001";
const LAST = "0191c2a4-0000-7000-8000-0000000000ff";

describe.each(DATABASES)("the feed cache (%s)", (kind) => {
  const cached = serverWithCachedLog(kind);

  const files = () => readdirSync(cached.dir).sort();
  /** An event log of its own, as another process on this machine sharing the cache directory. */
  const anotherProcess = (db = cached.t.server.services.database.db) => {
    const { database, config, clock } = cached.t.server.services;
    return new EventLog({ ...database, db }, config, clock);
  };

  it("writes each stored batch to a file and serves it from there, with no query once it knows where batches start", async () => {
    expect(files()).toEqual([0, cached.rows[999].seq].map((after, i) => `${cached.t.organizationId}.${after}.${cached.rows[999 + i * 1000].id}.${cached.t.server.services.events.stored.rendering}.json`).sort());
    expect(readFileSync(join(cached.dir, files()[0])).toString()).toBe(cached.rendered(0));
    expect(statSync(cached.dir).mode & 0o777).toBe(0o700);

    const { db, statements } = loggedConnection(kind, cached.t.database.url, 2);
    try {
      const log = anotherProcess(db);
      // The first look finds where the stored batches start (one query, no bodies)...
      expect((await log.readBatch(cached.t.organizationId, 0)).body.toString()).toBe(cached.rendered(0));
      expect(statements).toHaveLength(1);
      expect(statements[0].replace("octet_length(body)", "")).not.toContain("body");
      // ...and the next stored batch costs the database nothing.
      expect((await log.readBatch(cached.t.organizationId, cached.rows[999].seq)).body.toString()).toBe(cached.rendered(1000));
      expect(statements).toHaveLength(1);
    } finally {
      await db.destroy();
    }
    // Over HTTP, every event once, byte for byte as the rows render.
    const answers: string[] = [];
    for (let last: string | undefined; ; ) {
      const answer = await cached.t.api("GET", `/api/events${last ? `?lastEventId=${last}` : ""}`);
      if (answer.body.length === 0) break;
      answers.push(answer.text);
      last = answer.body.at(-1).id;
    }
    expect(answers).toEqual([cached.rendered(0), cached.rendered(1000), cached.rendered(2000)]);
  });

  it("remembers where at most so many batches start, and looks up again what it forgot", async () => {
    const { db, statements } = loggedConnection(kind, cached.t.database.url, 2);
    try {
      const { database, events } = cached.t.server.services;
      const stored = new StoredBatches({ ...database, db }, events.stored.rendering, events.stored.cache, 1);
      const body = async (afterSeq: number) => (await stored.ahead(cached.t.organizationId, afterSeq))?.batch?.body.toString();
      expect(await body(0)).toBe(cached.rendered(0));
      expect(statements).toHaveLength(1);
      // The look found both stored batches; with room for one, the second is what it kept...
      expect(await body(cached.rows[999].seq)).toBe(cached.rendered(1000));
      expect(statements).toHaveLength(1);
      // ...so the first is looked up again, and served the same.
      expect(await body(0)).toBe(cached.rendered(0));
      expect(statements).toHaveLength(2);
    } finally {
      await db.destroy();
    }
  });

  it("reads a batch whose file is missing, cut short or zeroed from the database, and writes it whole again", async () => {
    const [first, second] = files();
    truncateSync(join(cached.dir, first), 1000);
    unlinkSync(join(cached.dir, second));
    const log = anotherProcess();
    expect((await log.readBatch(cached.t.organizationId, 0)).body.toString()).toBe(cached.rendered(0));
    expect((await log.readBatch(cached.t.organizationId, cached.rows[999].seq)).body.toString()).toBe(cached.rendered(1000));
    await log.stored.cache!.settled();
    expect(readFileSync(join(cached.dir, first)).toString()).toBe(cached.rendered(0));
    expect(readFileSync(join(cached.dir, second)).toString()).toBe(cached.rendered(1000));

    // A file of the right length whose bytes are not a batch (a crash can leave zeros).
    writeFileSync(join(cached.dir, first), Buffer.alloc(statSync(join(cached.dir, first)).size));
    const again = anotherProcess();
    expect((await again.readBatch(cached.t.organizationId, 0)).body.toString()).toBe(cached.rendered(0));
    await again.stored.cache!.settled();
    expect(readFileSync(join(cached.dir, first)).toString()).toBe(cached.rendered(0));
  });

  it("answers from the rows when a batch it remembered was replaced by another rendering and has no file", async () => {
    const log = anotherProcess();
    expect((await log.readBatch(cached.t.organizationId, 0)).body.toString()).toBe(cached.rendered(0));
    // Another process, with another APP_URL, stores its own rendering in the same place.
    const { database, config, clock } = cached.t.server.services;
    const other = new EventLog(database, { ...config, appUrl: "http://elsewhere.test", feedCacheDir: undefined }, clock);
    await other.sealer.seal(cached.t.organizationId);
    unlinkSync(join(cached.dir, files()[0]));
    expect((await log.readBatch(cached.t.organizationId, 0)).body.toString()).toBe(cached.rendered(0));
    expect((await log.readBatch(cached.t.organizationId, cached.rows[999].seq)).body.toString()).toBe(cached.rendered(1000));
    // This process's own batches again, for the tests after this one.
    await database.db.deleteFrom("event_batches").where("organization_id", "=", cached.t.organizationId).execute();
    await cached.t.server.services.events.sealer.seal(cached.t.organizationId);
    await cached.t.server.services.events.stored.cache!.settled();
  });

  it("never serves the file of an event the database no longer holds at that position", async () => {
    // A database restored from an older backup: its positions hold other events than the files,
    // and its stored batches came with it, not through this machine's cache.
    const [oldFirst] = files();
    const { database, config, clock, events } = cached.t.server.services;
    await database.db.deleteFrom("event_batches").where("organization_id", "=", cached.t.organizationId).execute();
    await database.db.deleteFrom("events").where("organization_id", "=", cached.t.organizationId).execute();
    await appendTeamEvents(cached.t, 1000);
    cached.rows = await allEvents(cached.t);
    await new EventLog(database, { ...config, feedCacheDir: undefined }, clock).sealer.seal(cached.t.organizationId);
    const restored = events.renderBatch(cached.rows);
    // As long as the old file: only its name tells them apart.
    expect(statSync(join(cached.dir, oldFirst)).size).toBe(Buffer.byteLength(restored));
    expect((await anotherProcess().readBatch(cached.t.organizationId, 0)).body.toString()).toBe(restored);
  });

  it("keeps serving when the directory cannot be written", async () => {
    // Below a regular file, no directory can be made, whoever runs the tests.
    writeFileSync(join(cached.dir, "a-file"), "");
    const { database, config, clock } = cached.t.server.services;
    const log = new EventLog(database, { ...config, feedCacheDir: join(cached.dir, "a-file", "cache") }, clock);
    await log.sealer.seal(cached.t.organizationId);
    expect((await log.readBatch(cached.t.organizationId, 0)).body.toString()).toBe(cached.t.server.services.events.renderBatch(cached.rows.slice(0, MAX_BATCH)));
    await log.stored.cache!.settled();
    unlinkSync(join(cached.dir, "a-file"));
  });

  it("lets two processes write the same batches at once, each file whole", async () => {
    const shared = mkdtempSync(join(tmpdir(), "steward-feed-cache-shared-"));
    const { database, config, clock } = cached.t.server.services;
    const [a, b] = [openDatabase(cached.t.database.url), openDatabase(cached.t.database.url)];
    try {
      await database.db.deleteFrom("event_batches").where("organization_id", "=", cached.t.organizationId).execute();
      const logs = [a, b].map((handle) => new EventLog(handle, { ...config, feedCacheDir: shared }, clock));
      await Promise.all(logs.map((log) => log.sealer.seal(cached.t.organizationId)));
      await Promise.all(logs.map((log) => log.stored.cache!.settled()));
      expect(readdirSync(shared)).toHaveLength(1);
      expect(readFileSync(join(shared, readdirSync(shared)[0])).toString()).toBe(cached.t.server.services.events.renderBatch(cached.rows.slice(0, MAX_BATCH)));
    } finally {
      await a.close();
      await b.close();
      rmSync(shared, { recursive: true, force: true });
    }
  });
});

describe("the feed cache's directory", () => {
  const key = (afterSeq: number, bytes: number) => ({ organizationId: ORG, afterSeq, lastId: LAST, rendering: "r1", bytes });
  const batch = (bytes: number) => Buffer.from(`[${"x".repeat(bytes - 2)}]`);

  it("stays within its limit, the oldest files going first, and clears writes abandoned by a crash", async () => {
    const dir = mkdtempSync(join(tmpdir(), "steward-feed-cache-limit-"));
    try {
      writeFileSync(join(dir, "abandoned.part"), "[");
      utimesSync(join(dir, "abandoned.part"), new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
      writeFileSync(join(dir, "being-written.part"), "[");
      const cache = new FeedCache(dir, 1024 * 1024);
      // 24 files of 100 kB: the cache trims after each eighth of its limit written.
      for (let i = 0; i < 24; i++) {
        cache.write(key(i, 100_000), batch(100_000));
        await cache.settled();
      }
      const left = readdirSync(dir).filter((name) => name.endsWith(".json"));
      const total = left.reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
      expect(total).toBeLessThanOrEqual(1024 * 1024);
      expect(left.length).toBeGreaterThan(0);
      expect(await cache.read(key(23, 100_000))).toBeDefined();
      expect(await cache.read(key(0, 100_000))).toBeUndefined();
      expect(readdirSync(dir)).toContain("being-written.part");
      expect(readdirSync(dir)).not.toContain("abandoned.part");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("writes and reads no path that is not built from ids, a position and a digest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "steward-feed-cache-names-"));
    try {
      const cache = new FeedCache(join(dir, "cache"), 1024 * 1024);
      for (const hostile of [{ organizationId: "../escape" }, { lastId: "../../x" }, { rendering: "a/b" }, { afterSeq: -1 }, { afterSeq: 1.5 }]) {
        const k = { ...key(1, 10), ...hostile };
        cache.write(k, batch(10));
        expect(await cache.read(k)).toBeUndefined();
      }
      await cache.settled();
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("uses a directory that could not be made once it can be, and logs the failure once a minute", async () => {
    const dir = mkdtempSync(join(tmpdir(), "steward-feed-cache-later-"));
    try {
      writeFileSync(join(dir, "cache"), "");
      const warnings: string[] = [];
      const logger = { warn: (_: unknown, message: string) => warnings.push(message) } as unknown as FastifyBaseLogger;
      const cache = new FeedCache(join(dir, "cache"), 1024 * 1024, logger);
      cache.write(key(1, 10), batch(10));
      cache.write(key(2, 10), batch(10));
      await cache.settled();
      expect(warnings).toHaveLength(1);
      rmSync(join(dir, "cache"));
      cache.write(key(3, 10), batch(10));
      await cache.settled();
      expect(cache.read(key(3, 10))?.body.toString()).toBe(batch(10).toString());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves no half-written file behind when a write fails", async () => {
    const dir = mkdtempSync(join(tmpdir(), "steward-feed-cache-failed-"));
    try {
      // A directory where the file belongs: the rename into place fails.
      mkdirSync(join(dir, `${ORG}.7.${LAST}.r1.json`));
      writeFileSync(join(dir, `${ORG}.7.${LAST}.r1.json`, "x"), "");
      const cache = new FeedCache(dir, 1024 * 1024);
      cache.write(key(7, 10), batch(10));
      await cache.settled();
      expect(readdirSync(dir)).toEqual([`${ORG}.7.${LAST}.r1.json`]);
      expect(await cache.read(key(7, 10))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is configured by FEED_CACHE_DIR, made absolute, and a limit in bytes", () => {
    const config = loadConfig({ FEED_CACHE_DIR: "var/feed", FEED_CACHE_LIMIT_BYTES: String(64 * 1024 ** 2) });
    expect(config.feedCacheDir).toBe(resolve("var/feed"));
    expect(config.feedCacheLimitBytes).toBe(64 * 1024 ** 2);
    expect(loadConfig({}).feedCacheDir).toBeUndefined();
    expect(() => loadConfig({ FEED_CACHE_LIMIT_BYTES: "5" })).toThrow(ConfigError);
  });
});
