import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/platform/clock.js";
import { DATABASES } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import type { StandardsCheck } from "../helpers/checks.js";
import { ACCEPT_EVENTS, ACCEPT_JSON, SdkClient, throughGeneratedModel } from "./java-sdk.js";

/**
 * The reference product's GCP access-management connector (its `GcpAccessManagement` handler on
 * the SDK), request for request, through a grant and a cancel by the consumer:
 *
 * - on AccessActivatedEvent and AccessDeactivatedEvent it reads the access, the provider product,
 *   the port's contract (for the BigQuery server) and the consumer team (for its group); then it
 *   grants or revokes on BigQuery, and adds or removes the tag `permission-granted-on-gcp` by a
 *   GET of the access and a PUT of that document, whole, through the generated model;
 * - the listener handles the feed in order and moves past an event only when its handler
 *   succeeded: a handler that fails is retried on the next turn, and nothing after it is handled.
 *
 * A consumer's cancel as of today closes the access at once, so the revoke's re-tag is a
 * PUT to a closed access. Saving the position in the connector's state is replayed in
 * event-listener.suite.ts.
 */
const TAG = "permission-granted-on-gcp";

interface CloudEvent {
  id: string;
  type: string;
  data: { id: string };
}

class GcpConnector {
  readonly grants = new Set<string>();
  lastEventId: string | undefined;
  /** Requests of each handled event, `METHOD path status`, for the request-for-request assertions. */
  readonly handled: Array<{ kind: string; requests: string[] }> = [];

  constructor(
    readonly sdk: SdkClient,
    private readonly check: StandardsCheck,
  ) {}

  /** One turn of the listener: answers how many events it handled; stops at the first failure. */
  async poll(): Promise<number> {
    const query = this.lastEventId === undefined ? "?longPolling=false" : `?lastEventId=${this.lastEventId}&longPolling=false`;
    const events = (await this.sdk.ok("GET", `/api/events${query}`, ACCEPT_EVENTS)).body as CloudEvent[];
    let count = 0;
    for (const event of events) {
      const kind = event.type.slice(event.type.lastIndexOf(".") + 1);
      const from = this.sdk.calls.length;
      const ok = kind === "AccessActivatedEvent" ? await this.onActivated(event.data.id) : kind === "AccessDeactivatedEvent" ? await this.onDeactivated(event.data.id) : true;
      if (kind.startsWith("AccessActivated") || kind.startsWith("AccessDeactivated")) {
        this.handled.push({ kind, requests: this.sdk.calls.slice(from).map((c) => `${c.method} ${c.path} ${c.status}`) });
      }
      if (!ok) break;
      this.lastEventId = event.id;
      count++;
    }
    return count;
  }

  private async read(path: string, template: string): Promise<any> {
    const res = await this.sdk.ok("GET", path, ACCEPT_JSON);
    this.check.answer("GET", template, 200, res.body);
    return res.body;
  }

  /** The dataset behind the access's port (from the contract's first server) and the consumer team's group. */
  private async resolve(accessId: string): Promise<{ dataset: string; group: string }> {
    const access = await this.read(`/api/access/${accessId}`, "/api/access/{id}");
    const product = await this.read(`/api/dataproducts/${access.provider.dataProductId}`, "/api/dataproducts/{id}");
    const port = product.outputPorts.find((p: any) => p.id === access.provider.outputPortId || p.name === access.provider.outputPortId);
    const contract = await this.read(`/api/datacontracts/${port.dataContractId}`, "/api/datacontracts/{id}");
    const server = contract.servers[0];
    const team = await this.read(`/api/teams/${access.consumer.teamId}`, "/api/teams/{id}");
    return { dataset: `${server.project}.${server.dataset}`, group: team.custom.gcpGroup };
  }

  private async onActivated(accessId: string): Promise<boolean> {
    const { dataset, group } = await this.resolve(accessId);
    this.grants.add(`${dataset} ${group}`);
    return this.retag(accessId, (tags) => [...tags, TAG]);
  }

  private async onDeactivated(accessId: string): Promise<boolean> {
    const { dataset, group } = await this.resolve(accessId);
    this.grants.delete(`${dataset} ${group}`);
    return this.retag(accessId, (tags) => tags.filter((t) => t !== TAG));
  }

  /** addTag / removeTag: GET, change the tags of the generated model, PUT it back; an ApiException fails the handler. */
  private async retag(accessId: string, change: (tags: string[]) => string[]): Promise<boolean> {
    const access = throughGeneratedModel("Access", (await this.sdk.ok("GET", `/api/access/${accessId}`, ACCEPT_JSON)).body);
    const res = await this.sdk.send("PUT", `/api/access/${accessId}`, null, { ...access, tags: change(access.tags as string[]) });
    return res.status >= 200 && res.status < 300;
  }
}

/** The tests, with `check` holding answers against the reference description (test/helpers/checks.ts). */
export function gcpCancelReplay(check: StandardsCheck): void {
  describe.each(DATABASES)(`replay: the GCP connector through a grant and a consumer's cancel (%s)${check.label}`, (kind) => {
    let t: TestServer;
    let marketingKey: string;
    const clock = new ManualClock("2026-04-01T08:00:00.000Z");
    beforeAll(async () => {
      t = await startTestServer(kind, { schedulerIntervalMs: 3_600_000 }, clock);
      const setUp = async (path: string, body: unknown) => expect((await t.api("PUT", path, body)).status, path).toBe(200);
      await setUp("/api/teams/sales", { name: "Sales", type: "Team" });
      await setUp("/api/teams/marketing", { name: "Marketing", type: "Team", custom: { gcpGroup: "group:marketing-analysts@example.com" } });
      await setUp("/api/datacontracts/orders-v1", {
        apiVersion: "v3.1.0", kind: "DataContract", id: "orders-v1", name: "Orders", version: "1.0.0", status: "active", team: { name: "sales" },
        servers: [{ server: "production", type: "bigquery", project: "acme-prod", dataset: "orders" }],
      });
      await setUp("/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "bigquery", type: "bigquery", dataContractId: "orders-v1" }] });
      marketingKey = (await t.api("POST", "/api/api-keys", { scope: "team", teamId: "marketing" })).body.key;
    });
    afterAll(() => t?.close());

    it("revokes on the cancel, re-tags the closed access with 200 and AccessUpdatedEvent, and moves on to later events", async () => {
      const connector = new GcpConnector(new SdkClient(t.url, t.key), check);
      const body = { info: { purpose: "Campaign attribution" }, provider: { dataProductId: "orders", outputPortId: "bigquery" }, consumer: { teamId: "marketing" } };
      expect((await t.api("PUT", "/api/access/marketing-orders", body, { key: marketingKey })).status).toBe(200);
      expect((await t.api("POST", "/api/access/marketing-orders/approve")).status).toBe(200);
      await connector.poll();
      expect([...connector.grants]).toEqual(["acme-prod.orders group:marketing-analysts@example.com"]);
      expect((await t.api("GET", "/api/access/marketing-orders")).body.tags).toEqual([TAG]);

      // The consumer cancels as of today (a plain date, as the reference's clients write one): the
      // access ends at once, and is closed.
      clock.advance(60_000);
      const canceled = await t.api("POST", "/api/access/marketing-orders/cancel", { endDate: "2026-04-01", comment: "campaign over" }, { key: marketingKey });
      expect(canceled.body.info).toMatchObject({ status: "approved", active: false });
      // Another access is requested after it; the connector must get to its events too.
      expect((await t.api("PUT", "/api/access/marketing-orders-2", body, { key: marketingKey })).status).toBe(200);

      // A few turns: each one's own PUTs add events for the next.
      for (let turn = 0; turn < 5 && (await connector.poll()) > 0; turn++);
      expect([...connector.grants]).toEqual([]);
      const access = "/api/access/marketing-orders";
      const reads = [`GET ${access} 200`, "GET /api/dataproducts/orders 200", "GET /api/datacontracts/orders-v1 200", "GET /api/teams/marketing 200"];
      expect(connector.handled).toEqual([
        { kind: "AccessActivatedEvent", requests: [...reads, `GET ${access} 200`, `PUT ${access} 200`] },
        { kind: "AccessDeactivatedEvent", requests: [...reads, `GET ${access} 200`, `PUT ${access} 200`] },
      ]);
      const closed = (await t.api("GET", access)).body;
      expect(closed.tags).toEqual([]);
      expect(closed.info).toMatchObject({ purpose: "Campaign attribution", status: "approved", active: false, canceledAt: expect.any(String) });

      // The feed: the re-tag is an update like any other, and the connector has read to the end.
      const feed = (await t.api("GET", "/api/events")).body as CloudEvent[];
      const kinds = feed.filter((e) => e.data.id === "marketing-orders").map((e) => e.type.split(".").pop());
      expect(kinds.slice(-3)).toEqual(["AccessCanceledEvent", "AccessDeactivatedEvent", "AccessUpdatedEvent"]);
      expect(connector.lastEventId).toBe(feed.at(-1)!.id);
      expect(feed.some((e) => e.data.id === "marketing-orders-2")).toBe(true);
    });
  });
}
