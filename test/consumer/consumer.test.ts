import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FeedConsumer,
  FeedConsumerError,
  FilePositionStore,
  MemoryPositionStore,
  type CloudEvent,
  type FeedConsumerOptions,
  type Sleep,
} from "../../src/consumer/index.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { FaultProxy, newOrg, RecordingStore, until, type Org } from "./helpers.js";

/**
 * An injected sleep that records each wait and stops the consumer at the first wait after `[]`
 * (or after ten waits, so that a consumer that wrongly retries fails fast instead of spinning).
 */
function recordingSleep(controller: AbortController, emptyWaitMs = 10_000): { waits: number[]; sleep: Sleep } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms) => {
      waits.push(ms);
      if (ms === emptyWaitMs || waits.length >= 10) controller.abort();
    },
  };
}

/** Runs a consumer over `org` until its first wait after an empty batch; returns what it handled. */
async function drain(org: Org, options: Partial<FeedConsumerOptions> = {}) {
  const controller = new AbortController();
  const { waits, sleep } = recordingSleep(controller);
  const handled: CloudEvent[] = [];
  const consumer = new FeedConsumer({
    baseUrl: org.url,
    apiKey: org.key,
    store: new MemoryPositionStore(),
    handler: (event) => void handled.push(event),
    signal: controller.signal,
    sleep,
    ...options,
  });
  await consumer.run();
  return { handled, waits, consumer };
}

const ids = (events: CloudEvent[]) => events.map((e) => e.id);

describe("FeedConsumer", () => {
  let t: TestServer;
  const proxies: FaultProxy[] = [];
  const dirs: string[] = [];
  const proxy = async (org: Org) => {
    const p = await FaultProxy.start(org.url);
    proxies.push(p);
    return p;
  };
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "steward-consumer-"));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  it("hands over every event in order, one at a time, saving the position after each, then waits 10 s after []", async () => {
    const org = await newOrg(t);
    for (const team of ["a", "a", "b", "a"]) await org.touch(team);
    const events = await org.events();
    expect(events.map((e) => e.type.split(".").at(-1))).toEqual(["TeamCreatedEvent", "TeamUpdatedEvent", "TeamCreatedEvent", "TeamUpdatedEvent"]);

    const log: string[] = [];
    const store = new RecordingStore(undefined, log);
    let inHandler = 0;
    const { waits, consumer } = await drain(org, {
      store,
      handler: async (event) => {
        expect(inHandler++).toBe(0);
        await new Promise((r) => setTimeout(r, 5));
        log.push(`handle ${event.id}`);
        inHandler--;
      },
    });
    expect(log).toEqual(["load", ...events.flatMap((e) => [`handle ${e.id}`, `save ${e.id}`])]);
    expect(waits).toEqual([10_000]);
    expect(consumer.position).toBe(events.at(-1)!.id);
  });

  it("reads batch after batch at once with the last id, and waits only after []", { timeout: 90_000 }, async () => {
    const org = await newOrg(t);
    // 1001 events: a full batch of 1000, then one, then [].
    for (let i = 0; i < 1001; i += 50) await Promise.all(Array.from({ length: Math.min(50, 1001 - i) }, (_, j) => org.touch(`t${i + j}`)));
    const events = await org.events();
    const p = await proxy(org);
    const { handled, waits } = await drain({ ...org, url: p.url });
    expect(ids(handled)).toEqual(ids(events));
    expect(p.feedRequests).toEqual([
      "GET /api/events?longPolling=false",
      `GET /api/events?longPolling=false&lastEventId=${events[999].id}`,
      `GET /api/events?longPolling=false&lastEventId=${events[1000].id}`,
    ]);
    expect(waits).toEqual([10_000]);
  });

  it("resumes from a memory store's initial position", async () => {
    const org = await newOrg(t);
    for (const team of ["a", "b", "c", "d"]) await org.touch(team);
    const events = await org.events();
    const { handled } = await drain(org, { store: new MemoryPositionStore(events[1].id) });
    expect(ids(handled)).toEqual(ids(events.slice(2)));
  });

  it("resumes from a position file after a restart; the file is replaced atomically", async () => {
    const org = await newOrg(t);
    await org.touch("a");
    await org.touch("b");
    const dir = tempDir();
    const path = join(dir, "nested", "deeper", "position");
    expect(await new FilePositionStore(path).load()).toBeUndefined();

    const first = await drain(org, { store: new FilePositionStore(path) });
    expect(first.handled).toHaveLength(2);
    expect(readFileSync(path, "utf8")).toBe(`${first.handled[1].id}\n`);
    expect(readdirSync(join(dir, "nested", "deeper"))).toEqual(["position"]);

    await org.touch("a");
    await org.touch("c");
    const second = await drain(org, { store: new FilePositionStore(path) });
    expect(ids(second.handled)).toEqual(ids((await org.events()).slice(2)));
    expect(readFileSync(path, "utf8").trim()).toBe(second.handled[1].id);
  });

  it("waits 60 s after a 5xx or a dropped connection, then asks again from the same position", async () => {
    const org = await newOrg(t);
    await org.touch("a");
    await org.touch("b");
    const events = await org.events();
    const p = await proxy(org);
    p.failNext(1, "503");
    p.failNext(1, "drop");
    const errors: { status: number | undefined; retryable: boolean; waitMs: number }[] = [];
    const { handled, waits } = await drain(
      { ...org, url: p.url },
      {
        store: new MemoryPositionStore(events[0].id),
        onError: (error, info) => errors.push({ status: error.status, retryable: error.retryable, waitMs: info.waitMs }),
      },
    );
    expect(ids(handled)).toEqual([events[1].id]);
    const from = `GET /api/events?longPolling=false&lastEventId=${events[0].id}`;
    expect(p.feedRequests).toEqual([from, from, from, `GET /api/events?longPolling=false&lastEventId=${events[1].id}`]);
    expect(waits).toEqual([60_000, 60_000, 10_000]);
    expect(errors).toEqual([
      { status: 503, retryable: true, waitMs: 60_000 },
      { status: undefined, retryable: true, waitMs: 60_000 },
    ]);
  });

  it("really waits the configured times (small waits, real clock)", async () => {
    const org = await newOrg(t);
    await org.touch("a");
    const p = await proxy(org);
    p.failNext(1, "503");
    const controller = new AbortController();
    const times: number[] = [];
    const handled: string[] = [];
    const consumer = new FeedConsumer({
      baseUrl: p.url,
      apiKey: org.key,
      store: new MemoryPositionStore(),
      handler: (event) => void handled.push(event.id),
      emptyWaitMs: 200,
      errorWaitMs: 1_000,
      signal: controller.signal,
      fetch: (input, init) => {
        times.push(performance.now());
        if (times.length === 4) controller.abort();
        return fetch(input, init);
      },
    });
    await consumer.run();
    // 503, wait 1000, one event, at once: [], wait 200, aborted. (The choice of each wait is
    // asserted exactly with an injected sleep above; this checks the real waits, loosely.)
    expect(handled).toHaveLength(1);
    const gaps = times.slice(1).map((time, i) => time - times[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(995);
    expect(gaps[2]).toBeGreaterThanOrEqual(195);
    expect(gaps[2]).toBeLessThan(995);
  });

  it("stops on 401 with a FeedConsumerError and no retry, never echoing the key", async () => {
    const org = await newOrg(t);
    const p = await proxy(org);
    const wrongKey = `stw_${"x".repeat(43)}`;
    const retried: unknown[] = [];
    const controller = new AbortController();
    const { waits, sleep } = recordingSleep(controller);
    const consumer = new FeedConsumer({
      baseUrl: p.url,
      apiKey: wrongKey,
      store: new MemoryPositionStore(),
      handler: () => {},
      signal: controller.signal,
      sleep,
      onError: (error) => retried.push(error),
    });
    const error = await consumer.run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FeedConsumerError);
    expect(error).toMatchObject({ status: 401, retryable: false, detail: expect.stringMatching(/API key/) });
    expect((error as Error).message).toMatch(/^GET \/api\/events\?longPolling=false answered 401 Unauthorized: A valid API key/);
    expect((error as Error).message).not.toContain(wrongKey);
    expect(p.feedRequests).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(retried).toEqual([]);
  });

  it("stops on 400 when the stored position names no event", async () => {
    const org = await newOrg(t);
    const unknown = randomUUID();
    const error = await drain(org, { store: new MemoryPositionStore(unknown) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedConsumerError);
    expect(error).toMatchObject({ status: 400, detail: expect.stringContaining(`lastEventId '${unknown}' names no event`) });
  });

  it("filters by kind whatever the type prefix, still moving the position past other events", async () => {
    const dmm = await startTestServer("sqlite", { eventTypePrefix: "com.datamesh-manager.events" });
    try {
      for (const server of [t, dmm]) {
        const org = await newOrg(server);
        for (const team of ["a", "a", "b", "b", "b"]) await org.touch(team);
        const events = await org.events();
        const store = new RecordingStore();
        const { handled } = await drain(org, { store, types: ["TeamUpdatedEvent"] });
        expect(handled.map((e) => e.type.replace(/\.[^.]+$/, ""))).toEqual(Array(3).fill(server === t ? "com.service.events" : "com.datamesh-manager.events"));
        expect(ids(handled)).toEqual(ids([events[1], events[3], events[4]]));
        expect(store.saves).toEqual(ids(events));
      }
    } finally {
      await dmm.close();
    }
  });

  it("gives the handler the resource behind data.id, and undefined once it is gone", async () => {
    const org = await newOrg(t);
    await org.touch("ops");
    const res = await fetch(`${org.url}/api/teams/ops`, { method: "DELETE", headers: { "x-api-key": org.key } });
    expect(res.status).toBe(204);
    const seen: unknown[] = [];
    await drain(org, {
      handler: async (_event, context) => {
        seen.push([context.kind, await context.fetchResource(), (await context.api.get<{ id: string }[]>("/api/teams")).length]);
      },
    });
    expect(seen).toEqual([
      ["TeamCreatedEvent", undefined, 0],
      ["TeamDeletedEvent", undefined, 0],
    ]);

    await org.touch("ops");
    const [created] = (await org.events()).slice(-1);
    let calls = 0;
    await drain(org, {
      store: new MemoryPositionStore((await org.events()).at(-2)!.id),
      handler: async (event, context) => {
        calls++;
        expect(event.id).toBe(created.id);
        expect(await context.fetchResource<{ id: string; name: string }>()).toMatchObject({ id: "ops", name: expect.stringMatching(/^ops /) });
        expect(await context.fetchResource(`/api/teams/${event.data.id}`)).toMatchObject({ id: "ops" });
        await expect(context.api.get("/api/teams/nope")).rejects.toMatchObject({ name: "FeedConsumerError", status: 404 });
      },
    });
    expect(calls).toBe(1);
  });

  it("stops promptly when aborted during the wait after [] or during a request", async () => {
    const org = await newOrg(t);
    const p = await proxy(org);
    for (const phase of ["wait", "request"] as const) {
      const controller = new AbortController();
      const store = new RecordingStore();
      let emptyBatches = 0;
      const consumer = new FeedConsumer({
        baseUrl: p.url,
        apiKey: org.key,
        store,
        handler: () => {},
        signal: controller.signal,
        logger: { debug: (_message, fields) => void (fields?.events === 0 && emptyBatches++) },
      });
      const requestsBefore = p.feedRequests.length;
      if (phase === "request") p.failNext(1, "hang");
      const running = consumer.run();
      if (phase === "wait") await until(() => emptyBatches === 1, 5_000, "the first empty batch");
      else await until(() => p.feedRequests.length > requestsBefore, 5_000, "the held request");
      await new Promise((r) => setTimeout(r, 50));
      const started = performance.now();
      controller.abort();
      await running;
      expect(performance.now() - started, phase).toBeLessThan(1_000);
      expect(store.saves).toEqual([]);
      expect(p.feedRequests.length - requestsBefore, phase).toBe(1);
    }
  });

  it("stops promptly when aborted during the 60 s wait after a server error", async () => {
    const org = await newOrg(t);
    const p = await proxy(org);
    p.failNext(1, "503");
    const controller = new AbortController();
    let started = 0;
    const consumer = new FeedConsumer({
      baseUrl: p.url,
      apiKey: org.key,
      store: new MemoryPositionStore(),
      handler: () => {},
      signal: controller.signal,
      onError: () =>
        void setTimeout(() => {
          started = performance.now();
          controller.abort();
        }, 50),
    });
    await consumer.run();
    expect(started).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(p.feedRequests).toHaveLength(1);
  });

  it("a failing handler stops the consumer without advancing past that event", async () => {
    const org = await newOrg(t);
    for (const team of ["a", "b", "c", "d"]) await org.touch(team);
    const events = await org.events();
    const store = new RecordingStore();
    const failure = new Error("cannot grant");
    const attempted: string[] = [];
    const run = drain(org, {
      store,
      handler: (event) => {
        attempted.push(event.id);
        if (event.id === events[2].id) throw failure;
      },
    });
    await expect(run).rejects.toBe(failure);
    expect(attempted).toEqual(ids(events.slice(0, 3)));
    expect(store.saves).toEqual(ids(events.slice(0, 2)));

    // The next run starts with the event that failed: at least once.
    const { handled } = await drain(org, { store });
    expect(ids(handled)).toEqual(ids(events.slice(2)));
  });

  it("a store that cannot save stops the consumer with the store's error", async () => {
    const org = await newOrg(t);
    await org.touch("a");
    const broken = new Error("disk full");
    const run = drain(org, { store: { load: async () => undefined, save: async () => Promise.reject(broken) } });
    await expect(run).rejects.toBe(broken);
  });

  it("refuses a second run() while one is in progress", async () => {
    const org = await newOrg(t);
    const controller = new AbortController();
    const consumer = new FeedConsumer({ baseUrl: org.url, apiKey: org.key, store: new MemoryPositionStore(), handler: () => {}, signal: controller.signal });
    const first = consumer.run();
    await expect(consumer.run()).rejects.toThrow(/already in progress/);
    controller.abort();
    await first;
  });
});
