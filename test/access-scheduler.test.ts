import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/platform/config.js";
import { ManualClock } from "../src/platform/clock.js";
import { startServer } from "../src/server.js";
import { runCli, serve, type ServeProcess } from "./helpers/cli.js";
import { createTestDatabase, DATABASES } from "./helpers/databases.js";
import { request, startTestServer, type TestServer } from "./helpers/server.js";

const accessKinds = (events: any[], id: string) => events.filter((e) => e.subject === id).map((e) => e.type.split(".").pop());

async function seedCatalog(url: string, key: string) {
  await request(url, "PUT", "/api/teams/sales", { name: "Sales" }, { key });
  await request(url, "PUT", "/api/teams/marketing", { name: "Marketing" }, { key });
  await request(url, "PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg" }] }, { key });
}

describe.each(DATABASES)("access scheduler across restarts (%s)", (kind) => {
  it("catches up on activations and deactivations that fell due while Steward was down", async () => {
    const database = await createTestDatabase(kind);
    const clock = new ManualClock("2026-04-01T00:00:00.000Z");
    const config = loadConfig({}, { port: 0, databaseUrl: database.url, bootstrap: false, logLevel: "silent", schedulerIntervalMs: 3_600_000 });
    try {
      let server = await startServer(config, { clock, logger: false });
      const { apiKey: key } = await server.services.organizations.create("acme");
      await seedCatalog(server.url, key);
      const put = (id: string, info: Record<string, unknown>) =>
        request(server.url, "PUT", `/api/access/${id}`, { info: { purpose: "p", ...info }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "marketing" } }, { key });
      await put("starts-later", { startDate: "2026-04-03" });
      await put("ends-later", { endDate: "2026-04-03" });
      await put("window-missed", { startDate: "2026-04-02", endDate: "2026-04-02T12:00:00Z" });
      for (const id of ["starts-later", "ends-later", "window-missed"]) {
        expect((await request(server.url, "POST", `/api/access/${id}/approve`, undefined, { key })).status).toBe(200);
      }
      await server.close();

      clock.set("2026-04-05T00:00:00.000Z");
      server = await startServer(config, { clock, logger: false });
      // The first pass runs as the server starts; wait for it rather than for the interval.
      for (let i = 0; i < 100; i++) {
        const events = (await request(server.url, "GET", "/api/events", undefined, { key })).body;
        if (accessKinds(events, "ends-later").includes("AccessDeactivatedEvent") && accessKinds(events, "starts-later").includes("AccessActivatedEvent")) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const events = (await request(server.url, "GET", "/api/events", undefined, { key })).body;
      expect(accessKinds(events, "starts-later").slice(-1)).toEqual(["AccessActivatedEvent"]);
      expect(accessKinds(events, "ends-later").slice(-2)).toEqual(["AccessActivatedEvent", "AccessDeactivatedEvent"]);
      // A window that opened and closed entirely while down leaves nothing to grant or revoke.
      expect(accessKinds(events, "window-missed")).not.toContain("AccessActivatedEvent");
      await server.close();
    } finally {
      await database.drop();
    }
  });
});

describe("access scheduler in two processes on one PostgreSQL", () => {
  it("emits each activation and deactivation exactly once", { timeout: 120_000 }, async () => {
    const database = await createTestDatabase("postgres");
    const processes: ServeProcess[] = [];
    try {
      const org = JSON.parse((await runCli(["org", "create", "--name", "acme", "--json"], { DATABASE_URL: database.url })).stdout);
      const env = { DATABASE_URL: database.url, STEWARD_BOOTSTRAP: "false", SCHEDULER_INTERVAL_MS: "50" };
      processes.push(...(await Promise.all([serve(env), serve(env)])));
      const [a, b] = processes;
      const key = org.apiKey;
      await seedCatalog(a.url, key);
      const start = Date.now() + 2500;
      const ids = Array.from({ length: 20 }, (_, i) => `timed-${i}`);
      for (const [i, id] of ids.entries()) {
        const url = i % 2 ? a.url : b.url;
        const info = { purpose: "p", startDate: new Date(start + i * 20).toISOString(), endDate: new Date(start + 1500 + i * 20).toISOString() };
        await request(url, "PUT", `/api/access/${id}`, { info, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "marketing" } }, { key });
        await request(url, "POST", `/api/access/${id}/approve`, undefined, { key });
      }
      await new Promise((r) => setTimeout(r, Math.max(0, start + 1500 + 20 * 20 + 1500 - Date.now())));
      const events = (await request(b.url, "GET", "/api/events", undefined, { key })).body;
      for (const id of ids) {
        expect(accessKinds(events, id), id).toEqual(["AccessCreatedEvent", "AccessRequestedEvent", "AccessApprovedEvent", "AccessActivatedEvent", "AccessDeactivatedEvent"]);
      }
    } finally {
      for (const p of processes) {
        p.child.kill("SIGTERM");
        await p.exited;
      }
      await database.drop();
    }
  });
});

describe.each(DATABASES)("access scheduler with thousands of accesses falling due at once (%s)", (kind) => {
  it("works in bounded slices: requests are served while it runs, and every access activates exactly once, as the system", { timeout: 180_000 }, async () => {
    const clock = new ManualClock("2026-04-01T00:00:00.000Z");
    const t = await startTestServer(kind, { schedulerIntervalMs: 3_600_000 }, clock);
    try {
      await t.api("PUT", "/api/teams/sales", { name: "Sales" });
      await t.api("PUT", "/api/teams/marketing", { name: "Marketing" });
      await t.api("PUT", "/api/dataproducts/orders", { info: { title: "Orders", owner: "sales" }, outputPorts: [{ id: "pg", autoApprove: true }] });
      const principal = { organizationId: t.organizationId, scope: "organization" as const, teamIds: [] };
      const count = 1000;
      for (let i = 0; i < count; i++) {
        const body = { info: { purpose: "p", startDate: "2026-04-02" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "marketing" } };
        await t.server.services.access.put(principal, `due-${i}`, body);
      }
      clock.set("2026-04-02T00:00:00.000Z");

      let finished = false;
      const pass = t.server.scheduler.tick().then((n) => {
        finished = true;
        return n;
      });
      const live = await t.api("GET", "/health/live");
      expect(live.status).toBe(200);
      // The answer came while the pass still had slices to go: it never held the event loop throughout.
      expect(finished).toBe(false);
      expect(await pass).toBe(count);
      expect(await t.server.scheduler.tick()).toBe(0);

      const events = (await t.api("GET", "/api/events?lastEventId=" + (await firstAccessEventId(t)))).body as any[];
      const activations: any[] = [];
      let batch = events;
      while (batch.length > 0) {
        activations.push(...batch.filter((e) => e.type.endsWith("AccessActivatedEvent")));
        batch = (await t.api("GET", `/api/events?lastEventId=${batch[batch.length - 1].id}`)).body;
      }
      expect(activations).toHaveLength(count);
      expect(new Set(activations.map((e) => e.subject)).size).toBe(count);
      expect(activations.every((e) => e.principal === "system")).toBe(true);
    } finally {
      await t.close();
    }
  });
});

async function firstAccessEventId(t: TestServer): Promise<string> {
  const first = ((await t.api("GET", "/api/events")).body as any[]).find((e) => e.type.endsWith("AccessCreatedEvent"));
  return first.id;
}
