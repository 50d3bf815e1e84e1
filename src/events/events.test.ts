import { describe, expect, it } from "vitest";
import { DATABASES } from "../../test/helpers/databases.js";
import { request, startTestServer } from "../../test/helpers/server.js";
import { suiteServer } from "../../test/helpers/suite-server.js";
import { EVENT_KINDS } from "./kinds.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(DATABASES)("event feed (%s)", (kind) => {
  const t = suiteServer(kind, { overrides: { appUrl: "https://steward.example.com", longPollTimeoutMs: 3000 } });

  const feed = (query = "") => t.api("GET", `/api/events${query}`);
  const newestId = async (): Promise<string> => (await feed("/recent?limit=1")).body[0].id;

  it("starts empty: [] with the CloudEvents batch media type", async () => {
    const res = await feed();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/cloudevents-batch\+json/);
    expect(res.body).toEqual([]);
  });

  it("renders every envelope field exactly as specified", async () => {
    await t.api("PUT", "/api/teams/analytics", { name: "Analytics" });
    const [event] = (await feed()).body;
    expect(Object.keys(event).sort()).toEqual(
      ["data", "datacontenttype", "dataschema", "id", "principal", "source", "specversion", "subject", "time", "type"].sort(),
    );
    // The change was made with the test's organization key, which the envelope names by its id.
    expect(event.principal).toMatch(/^api-key:[0-9a-f-]{36}$/);
    expect(event.specversion).toBe("1.0");
    expect(event.id).toMatch(UUID);
    expect(event.type).toBe("com.service.events.TeamCreatedEvent");
    expect(event.source).toBe("https://steward.example.com");
    expect(event.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/);
    expect(event.subject).toBe("analytics");
    expect(event.datacontenttype).toBe("application/json");
    expect(event.dataschema).toBe("https://steward.example.com/api/openapi.yaml#/components/schemas/TeamCreatedEvent");
    expect(event.data).toEqual({ id: "analytics", timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/) });
    expect(event.data.timestamp.slice(0, 23)).toBe(event.time.slice(0, 23));
  });

  it("returns events strictly after lastEventId, oldest first", async () => {
    await t.api("PUT", "/api/teams/analytics", { name: "Analytics 2" });
    await t.api("DELETE", "/api/teams/analytics");
    const all = (await feed()).body;
    expect(all.map((e: any) => e.type.split(".").pop())).toEqual(["TeamCreatedEvent", "TeamUpdatedEvent", "TeamDeletedEvent"]);
    const after = (await feed(`?lastEventId=${all[0].id}&longPolling=false`)).body;
    expect(after.map((e: any) => e.id)).toEqual([all[1].id, all[2].id]);
    expect((await feed(`?lastEventId=${all[2].id}`)).body).toEqual([]);
    // Upper-case UUIDs name the same event.
    expect((await feed(`?lastEventId=${all[1].id.toUpperCase()}`)).body.map((e: any) => e.id)).toEqual([all[2].id]);
  });

  it("caps a batch at 1000 events and continues from the last id", async () => {
    const { events } = t.server.services;
    await events.transaction({ organizationId: t.organizationId }, async (_trx, emit) => {
      for (let i = 0; i < 1500; i++) emit("TeamUpdatedEvent", `bulk-${i}`);
    });
    const first = (await feed()).body;
    expect(first).toHaveLength(1000);
    const second = (await feed(`?lastEventId=${first[999].id}`)).body;
    expect(second).toHaveLength(503);
    const seen = new Set([...first, ...second].map((e: any) => e.id));
    expect(seen.size).toBe(1503);
    expect(second.at(-1).subject).toBe("bulk-1499");
  });

  it("answers 400 for a malformed or unknown lastEventId and a bad longPolling", async () => {
    for (const query of [
      "?lastEventId=not-a-uuid",
      "?lastEventId=0190b1e4-0000-7000-8000-000000000000",
      "?longPolling=yes",
      "?longPolling=",
    ]) {
      const res = await feed(query);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/problem\+json/);
      expect(res.body.violations?.[0]?.field ?? "", query).toMatch(/lastEventId|longPolling/);
    }
  });

  it("keeps each organization's feed to itself; another organization's event id is unknown", async () => {
    const other = await t.createOrganization(`feed-other-${kind}`);
    await request(t.url, "PUT", "/api/teams/theirs", { name: "Theirs" }, { key: other.key });
    const theirs = (await request(t.url, "GET", "/api/events", undefined, { key: other.key })).body;
    expect(theirs.map((e: any) => e.subject)).toEqual(["theirs"]);
    expect((await feed(`?lastEventId=${theirs[0].id}`)).status).toBe(400);
    const ours = (await feed()).body;
    expect(ours.map((e: any) => e.subject)).not.toContain("theirs");
  });

  it("serves the most recent events, of one subject if asked, oldest first", async () => {
    await t.api("PUT", "/api/teams/recent-a", { name: "A" });
    await t.api("PUT", "/api/teams/recent-b", { name: "B" });
    await t.api("PUT", "/api/teams/recent-a", { name: "A2" });
    const recent = await feed("/recent?limit=3");
    expect(recent.headers.get("content-type")).toMatch(/^application\/cloudevents-batch\+json/);
    expect(recent.body.map((e: any) => `${e.subject}:${e.type.split(".").pop()}`)).toEqual([
      "recent-a:TeamCreatedEvent",
      "recent-b:TeamCreatedEvent",
      "recent-a:TeamUpdatedEvent",
    ]);
    const history = (await feed("/recent?subject=recent-a")).body;
    expect(history.map((e: any) => e.type.split(".").pop())).toEqual(["TeamCreatedEvent", "TeamUpdatedEvent"]);
    // The last id continues into the feed proper.
    expect((await feed(`?lastEventId=${recent.body[2].id}`)).body).toEqual([]);
    expect((await feed("/recent?limit=0")).status).toBe(400);
    expect((await feed("/recent?limit=1001")).status).toBe(400);
    expect((await feed("/recent?subject=nobody")).body).toEqual([]);
  });

  it("holds a long poll until an event commits", async () => {
    const last = await newestId();
    const started = Date.now();
    const held = feed(`?lastEventId=${last}&longPolling=true`);
    await new Promise((r) => setTimeout(r, 200));
    await t.api("PUT", "/api/teams/wake-up", { name: "Wake up" });
    const res = await held;
    expect(res.body.map((e: any) => e.subject)).toEqual(["wake-up"]);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("answers a long poll with [] when the hold time ends", async () => {
    const last = await newestId();
    const started = Date.now();
    const res = await feed(`?lastEventId=${last}&longPolling=true`);
    expect(res.body).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
  });

  it("appends a change with more events than one INSERT can bind, in order and with its principal", async () => {
    const before = await newestId();
    const n = 12_000; // 96,000 values: past SQLite's 32,766 and PostgreSQL's 65,535 bound parameters
    await t.server.services.events.transaction({ organizationId: t.organizationId, keyId: "k-many" }, async (_trx, emit) => {
      for (let i = 0; i < n; i++) emit("OutputPortCreatedEvent", "many-ports", { outputPortId: `port-${i}` }, i === 0 ? "first" : undefined);
    });
    const seen: any[] = [];
    for (let last = before; ; ) {
      const batch = (await feed(`?lastEventId=${last}`)).body;
      if (batch.length === 0) break;
      seen.push(...batch);
      last = batch.at(-1).id;
    }
    expect(seen).toHaveLength(n);
    expect(seen.map((e) => e.data.outputPortId)).toEqual(Array.from({ length: n }, (_, i) => `port-${i}`));
    expect(new Set(seen.map((e) => e.principal))).toEqual(new Set(["api-key:k-many"]));
  });

  it("appends a change with more events than a JavaScript call takes arguments", async () => {
    // A product with this many ports needs MAX_OUTPUT_PORTS and BODY_LIMIT_BYTES raised, which an operator may do.
    const n = 150_000;
    await t.server.services.events.transaction({ organizationId: t.organizationId, keyId: "k-huge" }, async (_trx, emit) => {
      for (let i = 0; i < n; i++) emit("OutputPortCreatedEvent", "huge-product", { outputPortId: `port-${i}` });
    });
    const { db } = t.server.services.database;
    const row = await db.selectFrom("events").select((eb) => eb.fn.countAll<number>().as("n")).where("subject", "=", "huge-product").executeTakeFirstOrThrow();
    expect(Number(row.n)).toBe(n);
  }, 60_000);
});

describe("event type prefix", () => {
  it("follows EVENT_TYPE_PREFIX, for drop-in compatibility with existing connectors", async () => {
    const t = await startTestServer("sqlite", { eventTypePrefix: "com.datamesh-manager.events" });
    try {
      await t.api("PUT", "/api/teams/x", { name: "X" });
      const [event] = (await t.api("GET", "/api/events")).body;
      expect(event.type).toBe("com.datamesh-manager.events.TeamCreatedEvent");
    } finally {
      await t.close();
    }
  });
});

describe("OpenAPI document", () => {
  it("is public, 3.1, and describes every event kind and every API operation", async () => {
    const t = await startTestServer("sqlite");
    try {
      const json = await request(t.url, "GET", "/api/openapi.json");
      expect(json.status).toBe(200);
      expect(json.body.openapi).toBe("3.1.0");
      for (const kind of EVENT_KINDS) {
        const schema = json.body.components.schemas[kind];
        expect(schema?.type, kind).toBe("object");
        expect(schema.required).toEqual(expect.arrayContaining(["id", "timestamp"]));
      }
      const paths = Object.keys(json.body.paths);
      expect(paths).toEqual(expect.arrayContaining(["/api/events", "/api/teams", "/api/teams/{id}", "/api/api-keys", "/api/api-keys/{id}"]));
      expect(json.body.paths["/api/events"].get.responses["200"].content).toHaveProperty(["application/cloudevents-batch+json"]);
      const yaml = await request(t.url, "GET", "/api/openapi.yaml");
      expect(yaml.status).toBe(200);
      expect(yaml.headers.get("content-type")).toMatch(/yaml/);
      expect(yaml.text).toContain("openapi: 3.1.0");
      expect(yaml.text).toContain("AccessActivatedEvent:");
    } finally {
      await t.close();
    }
  });
});
