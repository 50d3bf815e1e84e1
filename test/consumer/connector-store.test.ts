import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectorPositionStore, FeedConsumer, FeedConsumerError, StewardClient, type CloudEvent } from "../../src/consumer/index.js";
import { DATABASES } from "../helpers/databases.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";
import { newOrg, type Org } from "./helpers.js";

/** Consumes `org` with a connector store until the first empty batch. */
async function drain(org: Org, store: ConnectorPositionStore): Promise<CloudEvent[]> {
  const controller = new AbortController();
  const handled: CloudEvent[] = [];
  await new FeedConsumer({
    baseUrl: org.url,
    apiKey: org.key,
    store,
    handler: (event) => void handled.push(event),
    signal: controller.signal,
    sleep: async () => controller.abort(),
  }).run();
  return handled;
}

describe.each(DATABASES)("ConnectorPositionStore (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind);
  });
  afterAll(() => t?.close());

  const connector = (org: Org, id: string) => request(org.url, "GET", `/api/connectors/${id}`, undefined, { key: org.key });

  it("registers the connector on first use, then keeps state.lastEventId after every event", async () => {
    const org = await newOrg(t);
    const info = { type: "test-consumer", connectorVersion: "1.0.0" };
    const store = new ConnectorPositionStore({ baseUrl: org.url, apiKey: org.key, connectorId: "c1", info });
    expect((await connector(org, "c1")).status).toBe(404);
    expect(await store.load()).toBeUndefined();
    expect((await connector(org, "c1")).body).toEqual({ id: "c1", info, state: {} });

    await org.touch("a");
    await org.touch("a");
    const handled = await drain(org, store);
    expect(handled).toHaveLength(2);
    expect((await connector(org, "c1")).body).toEqual({ id: "c1", info, state: { lastEventId: handled[1].id } });
  });

  it("works with a least-privilege connector key: registers, reads the feed and keeps its position", async () => {
    const org = await newOrg(t);
    const connectorKey = (await request(org.url, "POST", "/api/api-keys", { scope: "connector" }, { key: org.key })).body.key as string;
    const scoped = { ...org, key: connectorKey };
    await org.touch("a");
    const store = new ConnectorPositionStore({ baseUrl: org.url, apiKey: connectorKey, connectorId: "least", info: { type: "test-consumer" } });
    const handled = await drain(scoped, store);
    expect(handled).toHaveLength(1);
    expect((await connector(org, "least")).body.state).toEqual({ lastEventId: handled[0].id });
  });

  it("resumes from the stored position after a restart, keeping the other state fields and custom", async () => {
    const org = await newOrg(t);
    await org.touch("a");
    await org.touch("b");
    const [first, second] = await org.events();
    const existing = { info: { type: "pg-access", description: "grants" }, state: { lastEventId: first.id, cursor: { page: 3 } }, custom: { owner: "ops" } };
    expect((await request(org.url, "PUT", "/api/connectors/pg", existing, { key: org.key })).status).toBe(200);

    const client = new StewardClient({ baseUrl: org.url, apiKey: org.key });
    const handled = await drain(org, new ConnectorPositionStore({ client, connectorId: "pg", info: { type: "pg-access", connectorVersion: "2.0.0" } }));
    expect(handled.map((e) => e.id)).toEqual([second.id]);
    expect((await connector(org, "pg")).body).toEqual({
      id: "pg",
      info: { type: "pg-access", description: "grants", connectorVersion: "2.0.0" },
      state: { lastEventId: second.id, cursor: { page: 3 } },
      custom: { owner: "ops" },
    });

    await org.touch("c");
    const again = await drain(org, new ConnectorPositionStore({ client, connectorId: "pg", info: { type: "pg-access" } }));
    expect(again.map((e) => e.id)).toEqual([(await org.events()).at(-1)!.id]);
  });

  it("fails with 403 for a team key: connectors are for organization keys", async () => {
    const org = await newOrg(t);
    await org.touch("ops");
    const teamKey = (await request(org.url, "POST", "/api/api-keys", { displayName: "t", scope: "team", teamId: "ops" }, { key: org.key })).body.key;
    const store = new ConnectorPositionStore({ baseUrl: org.url, apiKey: teamKey, connectorId: "c", info: { type: "x" } });
    const error = await store.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedConsumerError);
    expect(error).toMatchObject({ status: 403, retryable: false });
  });
});
