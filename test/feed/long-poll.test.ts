/**
 * Held long polls: the per-process cap, and shutdown answering every held request.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, DATABASES } from "../helpers/databases.js";
import { request } from "../helpers/server.js";
import { bootstrapKey, Processes, readAll, readBatch, sleep, type FeedEvent } from "./helpers.js";

/** Starts `steward serve` on a fresh database of `kind` with one team, so the log has a last id. */
async function serverWithOneEvent(processes: Processes, kind: (typeof DATABASES)[number], env: Record<string, string>) {
  const database = await createTestDatabase(kind);
  const server = await processes.start({ DATABASE_URL: database.url, ...env });
  const key = bootstrapKey(server);
  expect((await request(server.url, "PUT", "/api/teams/first", { name: "First" }, { key })).status).toBe(200);
  const lastEventId = (await readAll(server.url, key)).at(-1)!.id;
  return { database, server, key, lastEventId };
}

/** A long poll, and when its answer arrived (0 while it is held). */
function hold(url: string, key: string, lastEventId: string) {
  const poll = { answeredAt: 0, answer: undefined as Promise<FeedEvent[]> | undefined };
  poll.answer = readBatch(url, key, lastEventId, true).finally(() => (poll.answeredAt = Date.now()));
  return poll;
}

describe("the long-poll cap", () => {
  const processes = new Processes();
  afterAll(() => processes.stopAll());

  it("answers 429 naming the limit to the third concurrent long poll with LONG_POLL_MAX_WAITING=2, and accepts again once they are answered", async () => {
    const { database, server, key, lastEventId } = await serverWithOneEvent(processes, "sqlite", {
      LONG_POLL_MAX_WAITING: "2",
      LONG_POLL_TIMEOUT_MS: "20000",
    });
    try {
      const polls = [hold(server.url, key, lastEventId), hold(server.url, key, lastEventId)];
      await sleep(300);
      expect(polls.map((p) => p.answeredAt)).toEqual([0, 0]);

      const third = await request(server.url, "GET", `/api/events?longPolling=true&lastEventId=${lastEventId}`, undefined, { key });
      expect(third.status).toBe(429);
      expect(third.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(third.headers.get("retry-after")).toBe("20");
      expect(third.body).toMatchObject({ status: 429, title: expect.any(String), detail: expect.stringMatching(/2 long polls \(LONG_POLL_MAX_WAITING\)/) });
      // Reads that are not held are still served.
      expect(await readBatch(server.url, key, lastEventId)).toEqual([]);

      expect((await request(server.url, "PUT", "/api/teams/second", { name: "Second" }, { key })).status).toBe(200);
      for (const poll of polls) expect((await poll.answer!).map((e) => e.subject)).toEqual(["second"]);
      // The answered polls no longer count: a new one is held again.
      const again = hold(server.url, key, (await readAll(server.url, key)).at(-1)!.id);
      await sleep(300);
      expect(again.answeredAt).toBe(0);
      expect(await processes.stop(server)).toBe(0);
      expect(await again.answer).toEqual([]);
    } finally {
      await processes.stopAll();
      await database.drop();
    }
  });
});

describe.each(DATABASES)("shutdown with held long polls (%s)", (kind) => {
  const processes = new Processes();
  afterAll(() => processes.stopAll());

  it("answers every held long poll with [] at SIGTERM and exits 0", async () => {
    const { database, server, key, lastEventId } = await serverWithOneEvent(processes, kind, { LONG_POLL_TIMEOUT_MS: "60000" });
    try {
      const polls = Array.from({ length: 6 }, () => hold(server.url, key, lastEventId));
      await sleep(300);
      expect(polls.every((p) => p.answeredAt === 0), "a long poll was answered before the shutdown").toBe(true);

      const signalledAt = Date.now();
      const exit = processes.stop(server, 5000);
      for (const poll of polls) expect(await poll.answer).toEqual([]);
      expect(Math.max(...polls.map((p) => p.answeredAt)) - signalledAt).toBeLessThan(2000);
      expect(await exit).toBe(0);
    } finally {
      await processes.stopAll();
      await database.drop();
    }
  });
});
