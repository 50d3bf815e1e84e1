import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../helpers/databases.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ACCEPT_JSON, ACCEPT_PROBLEM, SdkClient, throughGeneratedModel } from "./java-sdk.js";
import type { StandardsCheck } from "../helpers/checks.js";

/**
 * The SDK's connector registration as a connector runs it on every start: GET the connector,
 * and on 404 start from an empty model; set `id` and a fresh `info` (type and version); PUT the
 * whole model back. Stopping for good DELETEs it. The state the connector keeps (its feed
 * position) must survive the re-registration of a restart.
 */
/** The tests, with `check` holding answers and documents against the official standards (test/helpers/checks.ts). */
export function connectorRegistrationReplay(check: StandardsCheck): void {
  describe.each(DATABASES)(`replay: the SDK's connector registration (%s)${check.label}`, (kind) => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer(kind, { eventTypePrefix: "com.datamesh-manager.events" });
    });
    afterAll(() => t?.close());

    const id = "databricks-access-management";
    const path = `/api/connectors/${id}`;

    /** What `register()` sends, given the connector version it was built with (may be absent). */
    async function register(sdk: SdkClient, type: string, connectorVersion?: string): Promise<Record<string, unknown>> {
      const found = await sdk.send("GET", path, ACCEPT_JSON);
      let model: Record<string, unknown>;
      if (found.status === 404) {
        expect(found.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        check.answer("GET", "/api/connectors/{id}", 404, found.body);
        model = throughGeneratedModel("Connector", {});
      } else {
        expect(found.status, found.text).toBe(200);
        check.answer("GET", "/api/connectors/{id}", 200, found.body);
        model = throughGeneratedModel("Connector", found.body);
      }
      // A new info object: whatever else info held (e.g. a description) is not sent again.
      const body = { ...model, id, info: connectorVersion === undefined ? { type } : { type, connectorVersion } };
      await sdk.ok("PUT", path, ACCEPT_PROBLEM, body);
      return body;
    }

    it("registers on first start, keeps the stored state across a restart, and deletes on shutdown", async () => {
      const sdk = new SdkClient(t.url, t.key);

      // First start: nothing there yet. The generated model sends its empty state and custom maps.
      const first = await register(sdk, "accessmanagement", "0.9.0");
      expect(first).toEqual({ id, info: { type: "accessmanagement", connectorVersion: "0.9.0" }, state: {}, custom: {} });
      expect(sdk.calls.map((c) => `${c.method} ${c.status}`)).toEqual(["GET 404", "PUT 200"]);

      const read = await sdk.ok("GET", path, ACCEPT_JSON);
      check.answer("GET", "/api/connectors/{id}", 200, read.body);
      expect(read.body).toMatchObject({ id, info: { type: "accessmanagement", connectorVersion: "0.9.0" } });

      // While running, the remote state repository saves the feed position the way the SDK does:
      // read the connector, replace its state, put it back.
      const current = throughGeneratedModel("Connector", (await sdk.ok("GET", path, ACCEPT_JSON)).body);
      await sdk.ok("PUT", path, ACCEPT_PROBLEM, { ...current, state: { lastEventId: "2f0c3c5e-9a51-4a34-8d0e-7d3b5c1f9e21" } });

      // Restart with a newer build that reports no version: state and custom stay, info is replaced.
      const second = await register(sdk, "accessmanagement");
      expect(second.state).toEqual({ lastEventId: "2f0c3c5e-9a51-4a34-8d0e-7d3b5c1f9e21" });
      const after = await sdk.ok("GET", path, ACCEPT_JSON);
      check.answer("GET", "/api/connectors/{id}", 200, after.body);
      expect(after.body.info).toEqual({ type: "accessmanagement" });
      expect(after.body.state).toEqual({ lastEventId: "2f0c3c5e-9a51-4a34-8d0e-7d3b5c1f9e21" });

      const list = await sdk.ok("GET", "/api/connectors", ACCEPT_JSON);
      check.answer("GET", "/api/connectors", 200, list.body);
      expect(list.body.map((c: { id: string }) => c.id)).toEqual([id]);

      // delete(): a 404 would only be logged; 204 is the documented difference from the reference's 200.
      const deleted = await sdk.send("DELETE", path, ACCEPT_PROBLEM);
      expect(deleted.status).toBe(204);
      const gone = await sdk.send("DELETE", path, ACCEPT_PROBLEM);
      expect(gone.status).toBe(404);
      check.answer("DELETE", "/api/connectors/{id}", 404, gone.body);
      expect((await sdk.send("GET", path, ACCEPT_JSON)).status).toBe(404);

      // Registration is infrastructure, not catalog: it puts nothing on the event feed.
      expect((await t.api("GET", "/api/events")).body).toEqual([]);
    });

    it("registers as the older DataMeshManagerConnectorRegistration did: id and info.type, nothing else", async () => {
      // The older SDK (package datameshmanager.sdk) sends no version; builds from generators before
      // 7.14 left unset maps null, so state and custom are absent rather than empty.
      const sdk = new SdkClient(t.url, t.key);
      const legacy = "snowflake-assets";
      expect((await sdk.send("GET", `/api/connectors/${legacy}`, ACCEPT_JSON)).status).toBe(404);
      await sdk.ok("PUT", `/api/connectors/${legacy}`, ACCEPT_PROBLEM, { id: legacy, info: { type: "assets" } });
      const read = await sdk.ok("GET", `/api/connectors/${legacy}`, ACCEPT_JSON);
      check.answer("GET", "/api/connectors/{id}", 200, read.body);
      expect(read.body).toMatchObject({ id: legacy, info: { type: "assets" } });
    });
  });
}
