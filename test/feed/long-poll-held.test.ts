/**
 * Long polls at the end of the log are held, also right after a full batch (when the feed has
 * already read the next, empty, batch ahead), and one organization cannot take every place.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../helpers/databases.js";
import { request, startTestServer, type ApiResponse, type TestServer } from "../helpers/server.js";
import { sleep } from "./helpers.js";

const poll = (t: TestServer, key: string, lastEventId: string) => {
  const state = { answered: false, answer: undefined as unknown as Promise<ApiResponse> };
  state.answer = request(t.url, "GET", `/api/events?longPolling=true&lastEventId=${lastEventId}`, undefined, { key }).finally(() => (state.answered = true));
  return state;
};

describe.each(DATABASES)("a long poll right after a full batch (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, { longPollTimeoutMs: 20_000 });
  });
  afterAll(() => t?.close());

  it("is held until the next event commits, then answered with it", async () => {
    await t.server.services.events.transaction({ organizationId: t.organizationId }, async (_trx, emit) => {
      for (let i = 0; i < 1000; i++) emit("TeamUpdatedEvent", `full-${i}`);
    });
    const batch = await t.api("GET", "/api/events");
    expect(batch.body).toHaveLength(1000);
    // The batch was full, so the feed reads the next one ahead: at the tail that is empty.
    const held = poll(t, t.key, batch.body[999].id);
    await sleep(400);
    expect(held.answered, "the long poll after a full batch was answered at once").toBe(false);

    expect((await t.api("PUT", "/api/teams/next", { name: "Next" })).status).toBe(200);
    const answer = await held.answer;
    expect(answer.status).toBe(200);
    expect(answer.body.map((e: any) => e.subject)).toEqual(["next"]);
    // A plain read after a full batch sees what committed since the read ahead, too.
    expect((await t.api("GET", `/api/events?lastEventId=${batch.body[999].id}`)).body.map((e: any) => e.subject)).toEqual(["next"]);
  });
});

describe("the per-organization long-poll cap", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite", { longPollTimeoutMs: 20_000, longPollMaxWaiting: 10, longPollMaxWaitingPerOrganization: 2 });
  });
  afterAll(() => t?.close());

  it("answers 429 past the organization's cap while other organizations are still held, and frees places when polls are answered", async () => {
    const other = await t.createOrganization("other");
    for (const [key, team] of [[t.key, "a"], [other.key, "b"]] as const) {
      expect((await request(t.url, "PUT", `/api/teams/${team}`, { name: team }, { key })).status).toBe(200);
    }
    const tail = async (key: string) => (await request(t.url, "GET", "/api/events", undefined, { key })).body.at(-1).id as string;
    const mine = await tail(t.key);
    const theirs = await tail(other.key);

    const held = [poll(t, t.key, mine), poll(t, t.key, mine)];
    await sleep(300);
    expect(held.map((p) => p.answered)).toEqual([false, false]);

    const refused = await request(t.url, "GET", `/api/events?longPolling=true&lastEventId=${mine}`, undefined, { key: t.key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(refused.body).toMatchObject({ status: 429, detail: expect.stringMatching(/LONG_POLL_MAX_WAITING_PER_ORGANIZATION/) });
    // Plain reads of the same organization are still served.
    expect((await request(t.url, "GET", `/api/events?lastEventId=${mine}`, undefined, { key: t.key })).body).toEqual([]);

    // Another organization still gets its long polls held.
    const theirPoll = poll(t, other.key, theirs);
    await sleep(300);
    expect(theirPoll.answered).toBe(false);

    expect((await t.api("PUT", "/api/teams/a2", { name: "a2" })).status).toBe(200);
    for (const p of held) expect((await p.answer).body.map((e: any) => e.subject)).toEqual(["a2"]);
    expect(theirPoll.answered).toBe(false);
    const again = poll(t, t.key, await tail(t.key));
    await sleep(300);
    expect(again.answered, "answered polls still counted against the organization").toBe(false);

    expect((await request(t.url, "PUT", "/api/teams/b2", { name: "b2" }, { key: other.key })).status).toBe(200);
    expect((await theirPoll.answer).body.map((e: any) => e.subject)).toEqual(["b2"]);
    expect((await t.api("PUT", "/api/teams/a3", { name: "a3" })).status).toBe(200);
    expect((await again.answer).body.map((e: any) => e.subject)).toEqual(["a3"]);
  });
});
