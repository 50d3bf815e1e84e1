import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedConsumer, MemoryPositionStore, type CloudEvent } from "../../src/consumer/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

describe("FeedConsumer with longPolling", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite", { longPollTimeoutMs: 2_000 });
  });
  afterAll(() => t?.close());

  it("is handed an event the moment it commits, with no empty wait in between, and waits the protocol's time without it", async () => {
    const seen: Array<{ event: CloudEvent; at: number }> = [];
    const controller = new AbortController();
    const waits: number[] = [];
    const consumer = new FeedConsumer({
      baseUrl: t.url,
      apiKey: t.key,
      store: new MemoryPositionStore(),
      longPolling: true,
      // Far longer than the test: a consumer that slept it would never see the event in time.
      emptyWaitMs: 600_000,
      sleep: async (ms, signal) => {
        waits.push(ms);
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      },
      signal: controller.signal,
      handler: async (event) => {
        seen.push({ event, at: Date.now() });
      },
    });
    const running = consumer.run();
    // Let the consumer reach the end of the feed and be held there for more than one poll.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const before = Date.now();
    expect((await t.api("PUT", "/api/teams/late", { name: "late" })).status).toBe(200);
    for (let i = 0; i < 100 && !seen.some((s) => s.event.subject === "late"); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const late = seen.find((s) => s.event.subject === "late");
    expect(late).toBeDefined();
    expect(late!.at - before).toBeLessThan(2_000);
    expect(waits).toEqual([]);
    controller.abort();
    await running;
  });

  it("stopWhenCaughtUp still stops at the first empty answer", async () => {
    const started = Date.now();
    await new FeedConsumer({ baseUrl: t.url, apiKey: t.key, store: new MemoryPositionStore(), longPolling: true, stopWhenCaughtUp: true, handler: async () => {} }).run();
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
