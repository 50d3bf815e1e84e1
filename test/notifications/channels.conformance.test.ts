import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceViolations } from "../helpers/reference.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** Team notification channels answer the reference product's NotificationChannel shape. */
describe("notification channels against the reference description", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite", { outbound: { allowPrivateNetworks: true, allowedHosts: [] } });
    await t.api("PUT", "/api/teams/marketing", { name: "Marketing" });
  });
  afterAll(() => t?.close());

  it("a reference client's PUT is accepted, and GET one and the list match NotificationChannel", async () => {
    const body = { id: "slack-alerts", name: "Slack Alerts", type: "slack", endpoint: "http://127.0.0.1:9/services/T123/B456/xyz", enabled: true };
    expect((await t.api("PUT", "/api/teams/marketing/notification-channels/slack-alerts", body)).status).toBe(200);
    const one = await t.api("GET", "/api/teams/marketing/notification-channels/slack-alerts");
    expect(one.body).toEqual(body);
    expect(referenceViolations("GET", "/api/teams/{teamId}/notification-channels/{channelId}", 200, one.body)).toEqual([]);
    const list = await t.api("GET", "/api/teams/marketing/notification-channels");
    expect(referenceViolations("GET", "/api/teams/{teamId}/notification-channels", 200, list.body)).toEqual([]);
    expect((await t.api("DELETE", "/api/teams/marketing/notification-channels/slack-alerts")).status).toBe(200);
  });
});
