import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { MAX_BATCH } from "../../src/events/log.js";
import type { EventRow } from "../../src/events/repository.js";
import type { DatabaseKind } from "./databases.js";
import { startTestServer, type TestServer } from "./server.js";

/** Appends `count` TeamUpdatedEvents (subjects `team-<n>`) to the test organization's log, 100 a transaction. */
export async function appendTeamEvents(t: TestServer, count: number): Promise<void> {
  for (let done = 0; done < count; done += 100) {
    await t.server.services.events.transaction({ organizationId: t.organizationId }, async (_trx, emit) => {
      for (let i = 0; i < Math.min(100, count - done); i++) emit("TeamUpdatedEvent", `team-${done + i}`);
    });
  }
}

/** Every event of the test organization's log, oldest first. */
export async function allEvents(t: TestServer): Promise<EventRow[]> {
  const { events } = t.server.services;
  const all: EventRow[] = [];
  for (let page = await events.readAfter(t.organizationId, 0); page.length > 0; page = await events.readAfter(t.organizationId, all.at(-1)!.seq)) {
    all.push(...page);
  }
  return all;
}

/**
 * Appends `count` events and has the server store their full batches, with their files when it has
 * a feed cache; resolves with the whole log.
 */
export async function storedLog(t: TestServer, count: number): Promise<EventRow[]> {
  await appendTeamEvents(t, count);
  await t.server.services.events.sealer.seal(t.organizationId);
  await t.server.services.events.stored.cache?.settled();
  return allEvents(t);
}

/** A test server with a feed cache, and a stored log of 2,500 events (`serverWithCachedLog`). */
export interface CachedLog {
  t: TestServer;
  /** The feed cache's directory. */
  dir: string;
  /** The whole log, oldest first. */
  rows: EventRow[];
  /** The batch that starts at `rows[from]`, as the server renders it from the rows. */
  rendered(from: number): string;
}

/**
 * Registers, in the calling `describe`, a server with a feed cache in a directory of its own and a
 * stored log of 2,500 events (two full batches and half of one), removed after the block. The
 * fields are set once the block's tests run.
 */
export function serverWithCachedLog(kind: DatabaseKind): CachedLog {
  const log = {
    rendered: (from: number) => log.t.server.services.events.renderBatch(log.rows.slice(from, from + MAX_BATCH)),
  } as CachedLog;
  beforeAll(async () => {
    log.dir = mkdtempSync(join(tmpdir(), "steward-feed-cache-"));
    log.t = await startTestServer(kind, { feedCacheDir: log.dir });
    log.rows = await storedLog(log.t, 2500);
  });
  afterAll(async () => {
    await log.t?.close();
    if (log.dir) rmSync(log.dir, { recursive: true, force: true });
  });
  return log;
}
