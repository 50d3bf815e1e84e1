/**
 * The feed under concurrent writes: every event exactly once, in one order all processes agree
 * on, nothing missing. On PostgreSQL two processes share the database; on SQLite one serves.
 * The processes share a feed cache (FEED_CACHE_DIR), as processes on one machine would.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServeProcess } from "../helpers/cli.js";
import { createTestDatabase, DATABASES, type TestDatabase } from "../helpers/databases.js";
import { request } from "../helpers/server.js";
import {
  acknowledged,
  bootstrapKey,
  expectFeedMatchesChanges,
  expectTeamsMatchReplay,
  follow,
  Processes,
  readAll,
  readBatch,
  runWriters,
  sleep,
  type Change,
} from "./helpers.js";

const WRITERS = 8;
const CHANGES_PER_WRITER = 250;

describe.each(DATABASES)("the feed under concurrent writers (%s)", (kind) => {
  const processes = new Processes();
  let database: TestDatabase;
  let servers: ServeProcess[];
  let key: string;
  const cacheDir = mkdtempSync(join(tmpdir(), "steward-order-cache-"));

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const env = { DATABASE_URL: database.url, FEED_CACHE_DIR: cacheDir };
    // The first start bootstraps the organization; a second process then joins the same database.
    const first = await processes.start(env);
    key = bootstrapKey(first);
    servers = kind === "postgres" ? [first, await processes.start(env)] : [first];
  }, 60_000);
  afterAll(async () => {
    await processes.stopAll();
    await database?.drop();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it(`serves ${WRITERS} × ${CHANGES_PER_WRITER} changes once each, in one order, to a consumer following along`, async () => {
    const urls = servers.map((s) => s.url);
    let changes: Change[] | undefined;
    const writing = runWriters({ urls, key, writers: WRITERS, changesPerWriter: CHANGES_PER_WRITER }).then((c) => (changes = c));
    const [, followed] = await Promise.all([writing, follow(urls, key, () => changes !== undefined, 50_000)]);

    const made = changes!;
    expect(acknowledged(made)).toHaveLength(WRITERS * CHANGES_PER_WRITER);
    expect(followed).toHaveLength(made.length);
    // The full batches are stored and written to the cache's files in the background; once they
    // are, the reads below are answered from them.
    const cached = () => readdirSync(cacheDir).filter((name) => name.endsWith(".json")).length;
    for (let waited = 0; cached() < Math.floor(made.length / 1000) && waited < 10_000; waited += 50) await sleep(50);
    expect(cached()).toBe(Math.floor(made.length / 1000));
    // Every process serves the same full sequence, and it is the one the live consumer saw: had a
    // position been handed out out of commit order, the consumer would have skipped an event.
    const full = await Promise.all(urls.map((url) => readAll(url, key)));
    for (const sequence of full) expect(sequence.map((e) => e.id)).toEqual(followed.map((e) => e.id));
    const effective = expectFeedMatchesChanges(followed, made);
    await expectTeamsMatchReplay(urls[0], key, effective);
  }, 60_000);

  it("wakes a long poll within 1 s of a commit, on another process where two share the database", async () => {
    for (let round = 0; round < 6; round++) {
      const holder = servers[round % servers.length];
      const writer = servers[(round + 1) % servers.length];
      const all = await readAll(holder.url, key);
      let answeredAt = 0;
      const held = readBatch(holder.url, key, all.at(-1)?.id, true).then((batch) => {
        answeredAt = Date.now();
        return batch;
      });
      await sleep(200);
      expect(answeredAt, "the long poll was answered before anything was written").toBe(0);
      const subject = `wake-${round}`;
      const put = await request(writer.url, "PUT", `/api/teams/${subject}`, { name: subject }, { key });
      expect(put.status).toBe(200);
      const committedAt = Date.now();
      const batch = await held;
      expect(batch.map((e) => e.subject)).toEqual([subject]);
      expect(answeredAt - committedAt).toBeLessThan(1000);
    }
  });
});
