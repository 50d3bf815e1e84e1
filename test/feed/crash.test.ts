/**
 * kill -9 during write load, then a restart on the same database: no acknowledged change lost its
 * events, and no event describes a change that did not happen.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, DATABASES } from "../helpers/databases.js";
import { request } from "../helpers/server.js";
import {
  acknowledged,
  bootstrapKey,
  expectFeedMatchesChanges,
  expectTeamsMatchReplay,
  Processes,
  readAll,
  runWriters,
  withTimeout,
} from "./helpers.js";

const KILL_AFTER = 300;

describe.each(DATABASES)("a crash during writes (%s)", (kind) => {
  const processes = new Processes();
  afterAll(() => processes.stopAll());

  it("keeps changes and events together across kill -9 and a restart", async () => {
    const database = await createTestDatabase(kind);
    try {
      const first = await processes.start({ DATABASE_URL: database.url });
      const key = bootstrapKey(first);

      // Kill once the load is well under way: some hundred changes acknowledged, more in flight.
      let underWay!: () => void;
      const killPoint = new Promise<void>((resolve) => (underWay = resolve));
      const writing = runWriters({
        urls: [first.url],
        key,
        writers: 8,
        changesPerWriter: 1000,
        onAcknowledged: (count) => count === KILL_AFTER && underWay(),
      });
      await withTimeout(killPoint, 30_000, () => {}, "the write load did not get under way");
      await processes.crash(first);
      const made = await writing;
      expect(acknowledged(made).length).toBeGreaterThanOrEqual(KILL_AFTER);
      expect(made.filter((c) => c.outcome === "unknown").length, "no change was in flight at the kill").toBeGreaterThan(0);

      const second = await processes.start({ DATABASE_URL: database.url });
      const events = await readAll(second.url, key);
      const effective = expectFeedMatchesChanges(events, made);
      await expectTeamsMatchReplay(second.url, key, effective);

      // The restarted process goes on appending after what survived.
      const after = await request(second.url, "PUT", "/api/teams/after-restart", { name: "After restart" }, { key });
      expect(after.status).toBe(200);
      const tail = await readAll(second.url, key);
      expect(tail.slice(0, events.length)).toEqual(events);
      expect(tail.slice(events.length).map((e) => e.subject)).toEqual(["after-restart"]);
      expect(await processes.stop(second)).toBe(0);
    } finally {
      await processes.stopAll();
      await database.drop();
    }
  }, 60_000);
});
