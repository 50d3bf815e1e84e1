import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/platform/clock.js";
import { DATABASES } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ACCEPT_EVENTS, ACCEPT_JSON, ACCEPT_PROBLEM, SdkClient, throughGeneratedModel } from "./java-sdk.js";
import type { StandardsCheck } from "../helpers/checks.js";

/**
 * The SDK's event listener with the remote state repository, driving an access-management
 * connector shaped as the reference's GCP connector (the one that reports provisioning back):
 *
 * - on construction it registers (GET connector, 404 → empty model, PUT);
 * - on start it reads `state.lastEventId` from GET /api/connectors/{id};
 * - it polls GET /api/events with `lastEventId` (left out while it has none) and
 *   `longPolling=false`, always;
 * - it dispatches on the text after the last `.` of `type`, and ignores (logs) kinds it does not
 *   know; the older DataMeshManagerEventListener switches on the whole type
 *   (`com.datamesh-manager.events.<Kind>`), so that exact prefix is checked on every event;
 * - after each event it saves the position: GET connector, replace state with {lastEventId}, PUT;
 * - the connector fetches what `data.id` names, reports provisioning-started, tags the access
 *   through a GET + PUT of the whole access, and reports provisioning-succeeded (and the same
 *   backwards on deactivation).
 */
const PREFIX = "com.datamesh-manager.events";
const CONNECTOR = "gcp-access-management";
const PLATFORM = "bigquery";
const EXECUTOR = "Entropy Data GCP Connector";
const GRANTED_TAG = "permission-granted-on-gcp";

interface CloudEvent {
  id: string;
  type: string;
  subject: string;
  data: { id: string };
}

/** What the SDK dispatches on: the text after the last `.` of the type. */
const kindOf = (event: CloudEvent) => event.type.slice(event.type.lastIndexOf(".") + 1);

/** The listener of one connector process; `crashAfter` ends the process mid-batch. */
class ReplayedListener {
  readonly seen: CloudEvent[] = [];
  readonly unknownKinds: string[] = [];
  private lastEventId: string | undefined;

  private constructor(
    readonly sdk: SdkClient,
    private readonly handler: GcpAccessConnector,
  ) {}

  static async start(sdk: SdkClient, handler: GcpAccessConnector): Promise<ReplayedListener> {
    const listener = new ReplayedListener(sdk, handler);
    await listener.register();
    listener.lastEventId = (await listener.connector()).state?.lastEventId ?? undefined;
    return listener;
  }

  private async connector(): Promise<any> {
    const res = await this.sdk.ok("GET", `/api/connectors/${CONNECTOR}`, ACCEPT_JSON);
    this.handler.check.answer("GET", "/api/connectors/{id}", 200, res.body);
    return res.body;
  }

  private async register(): Promise<void> {
    const found = await this.sdk.send("GET", `/api/connectors/${CONNECTOR}`, ACCEPT_JSON);
    const model = throughGeneratedModel("Connector", found.status === 404 ? {} : found.body);
    await this.sdk.ok("PUT", `/api/connectors/${CONNECTOR}`, ACCEPT_PROBLEM, { ...model, id: CONNECTOR, info: { type: "accessmanagement" } });
  }

  private async saveLastEventId(id: string): Promise<void> {
    const model = throughGeneratedModel("Connector", await this.connector());
    await this.sdk.ok("PUT", `/api/connectors/${CONNECTOR}`, ACCEPT_PROBLEM, { ...model, state: { lastEventId: id } });
  }

  /** One turn of the loop: fetch, then handle and save each event. Answers how many it handled. */
  async poll(options: { crashAfter?: number } = {}): Promise<number> {
    const query = this.lastEventId === undefined ? "?longPolling=false" : `?lastEventId=${this.lastEventId}&longPolling=false`;
    const res = await this.sdk.ok("GET", `/api/events${query}`, ACCEPT_EVENTS);
    expect(res.headers.get("content-type")).toMatch(/^application\/cloudevents-batch\+json/);
    const events = res.body as CloudEvent[];
    // The reference's batch schema closes `data` without naming any member, which its own
    // per-kind schemas (and every event it sends) contradict; so the envelope is checked with
    // `data` emptied, and `data` against the schema of its kind, the one `dataschema` names.
    this.handler.check.answer("GET", "/api/events", 200, events.map((e) => ({ ...e, data: {} })));
    for (const event of events) this.handler.check.eventData(kindOf(event), event.data);
    let handled = 0;
    for (const event of events) {
      if (options.crashAfter !== undefined && handled === options.crashAfter) break;
      await this.dispatch(event);
      this.lastEventId = event.id;
      await this.saveLastEventId(event.id);
      handled++;
    }
    return handled;
  }

  async pollUntilEmpty(): Promise<void> {
    while ((await this.poll()) > 0);
  }

  private async dispatch(event: CloudEvent): Promise<void> {
    this.seen.push(event);
    const name = kindOf(event);
    expect(event.type).toBe(`${PREFIX}.${name}`);
    if (name === "AccessActivatedEvent") await this.handler.onAccessActivated(event.data.id);
    else if (name === "AccessDeactivatedEvent") await this.handler.onAccessDeactivated(event.data.id);
    else if (!SDK_KINDS.has(name)) this.unknownKinds.push(name);
  }
}

/** The kinds the SDK's switch names; anything else is logged as an unknown type. */
const SDK_KINDS = new Set([
  ...["DataProduct", "OutputPort", "DataContract", "SourceSystem", "Team", "Definition", "Tag", "Asset"].flatMap((r) =>
    ["Created", "Updated", "Deleted"].map((c) => `${r}${c}Event`),
  ),
  ...["Created", "Updated", "Deleted", "Requested", "Approved", "Rejected", "Activated", "Deactivated"].map((c) => `Access${c}Event`),
  "TestResultsCreatedEvent",
  "TestResultsDeletedEvent",
]);

/** The event handler of an access-management connector, request by request. */
class GcpAccessConnector {
  sdk!: SdkClient;

  constructor(readonly check: StandardsCheck) {}

  private async read(path: string, template: string): Promise<any> {
    const res = await this.sdk.ok("GET", path, ACCEPT_JSON);
    this.check.answer("GET", template, 200, res.body);
    return res.body;
  }

  /** The BigQuery dataset behind the access's output port, and the consumer team's group. */
  private async resolve(accessId: string) {
    const access = await this.read(`/api/access/${accessId}`, "/api/access/{id}");
    const product = await this.read(`/api/dataproducts/${access.provider.dataProductId}`, "/api/dataproducts/{id}");
    const port = product.outputPorts.find((p: any) => p.id === access.provider.outputPortId || p.name === access.provider.outputPortId);
    // The connectors read the port's contract untyped for its server, falling back to the port's
    // own `server` when that read fails (some generated client versions refuse to send it).
    const contract = await this.read(`/api/datacontracts/${port.dataContractId}`, "/api/datacontracts/{id}");
    const server = contract.servers?.[0] ?? port.server;
    const team = await this.read(`/api/teams/${access.consumer.teamId}`, "/api/teams/{id}");
    return { dataset: `${server.project}.${server.dataset}`, group: team.custom?.gcpGroup as string };
  }

  private async report(accessId: string, transition: string, body: Record<string, unknown>): Promise<void> {
    const res = await this.sdk.ok("POST", `/api/access/${accessId}/provisioning/${transition}`, ACCEPT_JSON, body);
    this.check.answer("POST", `/api/access/{id}/provisioning/${transition}`, 200, res.body);
  }

  /** addTag / removeTag: the access read into the generated model, changed, and PUT back whole. */
  private async retag(accessId: string, change: (tags: string[]) => string[]): Promise<void> {
    const access = throughGeneratedModel("Access", await this.read(`/api/access/${accessId}`, "/api/access/{id}"));
    // PUT /api/access/{id} documents no answer body, so the client sends no Accept header.
    await this.sdk.ok("PUT", `/api/access/${accessId}`, null, { ...access, tags: change(access.tags as string[]) });
  }

  readonly granted: Array<{ dataset: string; group: string }> = [];

  async onAccessActivated(accessId: string): Promise<void> {
    const { dataset, group } = await this.resolve(accessId);
    await this.report(accessId, "provisioning-started", { platform: PLATFORM, executor: EXECUTOR });
    this.granted.push({ dataset, group });
    await this.retag(accessId, (tags) => [...tags, GRANTED_TAG]);
    await this.report(accessId, "provisioning-succeeded", { platform: PLATFORM, executor: EXECUTOR, reference: dataset });
  }

  async onAccessDeactivated(accessId: string): Promise<void> {
    const { dataset, group } = await this.resolve(accessId);
    await this.report(accessId, "deprovisioning-started", { platform: PLATFORM, executor: EXECUTOR });
    this.granted.splice(this.granted.findIndex((g) => g.dataset === dataset && g.group === group), 1);
    await this.retag(accessId, (tags) => tags.filter((t) => t !== GRANTED_TAG));
    await this.report(accessId, "deprovisioning-succeeded", { platform: PLATFORM, executor: EXECUTOR, reference: dataset });
  }
}

const ordersContract = {
  apiVersion: "v3.1.0",
  kind: "DataContract",
  id: "orders-v1",
  name: "Orders",
  version: "1.0.0",
  status: "active",
  team: { name: "sales" },
  servers: [{ server: "production", type: "bigquery", project: "acme-prod", dataset: "orders" }],
  schema: [
    {
      name: "orders",
      physicalType: "table",
      properties: [
        { name: "order_id", logicalType: "string", physicalType: "STRING", required: true, primaryKey: true },
        { name: "amount", logicalType: "number", physicalType: "NUMERIC" },
      ],
    },
  ],
};

const ordersProduct = {
  id: "orders",
  info: { title: "Orders", owner: "sales", status: "active" },
  outputPorts: [{ id: "bigquery", name: "bigquery", type: "bigquery", dataContractId: "orders-v1", server: { project: "acme-prod", dataset: "orders" } }],
};

/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function eventListenerReplay(check: StandardsCheck): void {
  describe.each(DATABASES)(`replay: the SDK's event listener with remote state (%s)${check.label}`, (kind) => {
    let t: TestServer;
    const clock = new ManualClock("2026-03-02T08:00:00.000Z");
    beforeAll(async () => {
      // The scheduler runs only when the test ticks it, after moving the clock.
      t = await startTestServer(kind, { eventTypePrefix: PREFIX, schedulerIntervalMs: 3_600_000 }, clock);
    });
    afterAll(() => t?.close());

    async function setUp(method: string, path: string, body?: unknown) {
      const res = await t.api(method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    }

    it("follows the feed in order under the old type prefix, grants and revokes, and resumes after a restart without repeats", async () => {
      const connector = new GcpAccessConnector(check);
      connector.sdk = new SdkClient(t.url, t.key);
      let listener = await ReplayedListener.start(connector.sdk, connector);
      expect(connector.sdk.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
        `GET /api/connectors/${CONNECTOR} 404`,
        `PUT /api/connectors/${CONNECTOR} 200`,
        `GET /api/connectors/${CONNECTOR} 200`,
      ]);
      expect(await listener.poll()).toBe(0);
      expect(connector.sdk.calls.at(-1)!.path).toBe("/api/events?longPolling=false");

      // Providers and consumers at work in the catalog.
      await setUp("PUT", "/api/teams/sales", { name: "Sales", type: "Team" });
      await setUp("PUT", "/api/teams/marketing", { name: "Marketing", type: "Team", custom: { gcpGroup: "group:marketing-analysts@example.com" } });
      await setUp("PUT", "/api/datacontracts/orders-v1", ordersContract);
      await setUp("PUT", "/api/dataproducts/orders", ordersProduct);
      await setUp("PUT", "/api/access/marketing-orders", {
        info: { purpose: "Campaign attribution", endDate: "2026-03-31" },
        provider: { dataProductId: "orders", outputPortId: "bigquery" },
        consumer: { teamId: "marketing" },
      });

      // The process dies after four events; each was saved as it was handled.
      expect(await listener.poll({ crashAfter: 4 })).toBe(4);
      const beforeCrash = listener.seen.map((e) => e.id);

      // Restart: a new process registers again (keeping the saved state) and resumes after the fourth.
      const restartedAt = connector.sdk.calls.length;
      listener = await ReplayedListener.start(connector.sdk, connector);
      expect(connector.sdk.calls.slice(restartedAt).map((c) => `${c.method} ${c.status}`)).toEqual(["GET 200", "PUT 200", "GET 200"]);
      await listener.poll();
      expect(connector.sdk.calls.find((c, i) => i > restartedAt && c.path.startsWith("/api/events"))!.path).toBe(
        `/api/events?lastEventId=${beforeCrash[3]}&longPolling=false`,
      );

      await setUp("POST", "/api/access/marketing-orders/approve", { comment: "Approved for the spring campaign" });
      await listener.pollUntilEmpty();
      expect(connector.granted).toEqual([{ dataset: "acme-prod.orders", group: "group:marketing-analysts@example.com" }]);
      const granted = (await t.api("GET", "/api/access/marketing-orders")).body;
      expect(granted.tags).toEqual([GRANTED_TAG]);
      expect(granted.provisioning).toMatchObject({ status: "provisioned", platform: PLATFORM, executor: EXECUTOR, reference: "acme-prod.orders" });

      // The access expires: the scheduler deactivates it, and the connector revokes.
      clock.set("2026-03-31T00:00:01.000Z");
      expect(await t.server.scheduler.tick()).toBe(1);
      await listener.pollUntilEmpty();
      expect(connector.granted).toEqual([]);
      const revoked = (await t.api("GET", "/api/access/marketing-orders")).body;
      expect(revoked.tags).toEqual([]);
      expect(revoked.provisioning).toMatchObject({ status: "deprovisioned", reference: "acme-prod.orders" });

      // Across both processes: every event of the feed exactly once, in feed order.
      const feed = (await t.api("GET", "/api/events")).body as CloudEvent[];
      const seen = [...beforeCrash, ...listener.seen.map((e) => e.id)];
      expect(seen).toEqual(feed.map((e) => e.id));
      expect(new Set(seen).size).toBe(seen.length);
      for (const event of feed) {
        expect(event.type.startsWith(`${PREFIX}.`)).toBe(true);
        expect(event.data.id).toBe(event.subject);
      }
      const kinds = feed.map((e) => e.type.slice(PREFIX.length + 1));
      expect(kinds).toEqual([
        "TeamCreatedEvent",
        "TeamCreatedEvent",
        "DataContractCreatedEvent",
        "DataProductCreatedEvent",
        "OutputPortCreatedEvent",
        "AccessCreatedEvent",
        "AccessRequestedEvent",
        "AccessApprovedEvent",
        "AccessActivatedEvent",
        // what the connector's own calls caused while it handled the activation
        "AccessProvisioningStartedEvent",
        "AccessUpdatedEvent",
        "AccessProvisionedEvent",
        "AccessDeactivatedEvent",
        "AccessDeprovisioningStartedEvent",
        "AccessUpdatedEvent",
        "AccessDeprovisionedEvent",
      ]);
      // The SDK predates the provisioning kinds: it logs them as unknown and carries on.
      expect([...new Set(listener.unknownKinds)]).toEqual([
        "AccessProvisioningStartedEvent",
        "AccessProvisionedEvent",
        "AccessDeprovisioningStartedEvent",
        "AccessDeprovisionedEvent",
      ]);

      // The saved position is the last event, and reading from it gives nothing more.
      const state = (await connector.sdk.ok("GET", `/api/connectors/${CONNECTOR}`, ACCEPT_JSON)).body.state;
      expect(state).toEqual({ lastEventId: feed.at(-1)!.id });
      expect((await connector.sdk.ok("GET", `/api/events?lastEventId=${state.lastEventId}&longPolling=false`, ACCEPT_EVENTS)).body).toEqual([]);
      // The first SDK releases knew no longPolling parameter and sent lastEventId alone.
      expect((await connector.sdk.ok("GET", `/api/events?lastEventId=${feed[5]!.id}`, ACCEPT_EVENTS)).body.map((e: CloudEvent) => e.id)).toEqual(
        feed.slice(6).map((e) => e.id),
      );
    });
  });
}
