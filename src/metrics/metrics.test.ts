import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../test/helpers/databases.js";
import { request, startTestServer, type TestServer } from "../../test/helpers/server.js";

const TOKEN = "metrics-token-0123456789abcdef";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads Prometheus text format: `name{a="b",…} value` lines; comments skipped. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    expect(match, line).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const [, key, value] of match![2]?.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g) ?? []) labels[key] = value;
    samples.push({ name: match![1], labels, value: Number(match![3]) });
  }
  return samples;
}

describe.each(DATABASES)("GET /metrics (%s)", (kind) => {
  let t: TestServer;
  let off: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, { metricsToken: TOKEN, schedulerIntervalMs: 50 });
    off = await startTestServer(kind);
  });
  afterAll(async () => {
    await t?.close();
    await off?.close();
  });

  const scrape = async () => {
    const res = await request(t.url, "GET", "/metrics", undefined, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    return { text: res.text, samples: parse(res.text) };
  };
  const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
    samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

  it("is not served without METRICS_TOKEN, and only to the bearer of the token with it", async () => {
    expect((await request(off.url, "GET", "/metrics", undefined, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    const attempts: Array<Record<string, string>> = [{}, { authorization: "Bearer wrong-token-0123456789abcdef" }, { authorization: TOKEN }, { "x-api-key": t.key }];
    for (const headers of attempts) {
      const res = await request(t.url, "GET", "/metrics", undefined, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.text).not.toContain("steward_http_requests_total");
    }
    // An API key is no metrics token, and the metrics token is no API key.
    expect((await request(t.url, "GET", "/api/teams", undefined, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(401);
  });

  it("counts requests by route template and status, never by the URL a client sent", async () => {
    expect((await t.api("PUT", "/api/teams/secret-team-id", { name: "Secret" })).status).toBe(200);
    expect((await t.api("GET", "/api/teams/secret-team-id")).status).toBe(200);
    expect((await t.api("GET", "/api/teams/no-such-team-xyz")).status).toBe(404);
    expect((await request(t.url, "GET", "/no/such/path/unique-probe-123")).status).toBe(404);
    const other = await t.createOrganization(`metrics-${kind}`);
    expect((await request(t.url, "PUT", "/api/teams/other-orgs-team", { name: "Theirs" }, { key: other.key })).status).toBe(200);
    const { text, samples } = await scrape();
    for (const leaked of ["secret-team-id", "no-such-team-xyz", "unique-probe-123", "other-orgs-team"]) expect(text).not.toContain(leaked);
    expect(value(samples, "steward_http_requests_total", { method: "GET", route: "/api/teams/:id", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "steward_http_requests_total", { method: "GET", route: "/api/teams/:id", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "steward_http_requests_total", { route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "steward_http_request_duration_seconds_count", { method: "PUT", route: "/api/teams/:id", status: "200" })).toBeGreaterThanOrEqual(2);
    expect(samples.some((s) => s.name === "steward_http_request_duration_seconds_bucket" && s.labels.le === "+Inf")).toBe(true);
  });

  it("reports event-loop delay, the feed's appends, the scheduler's lag, the database pool and the worker threads", async () => {
    const before = value((await scrape()).samples, "steward_feed_events_appended_total");
    expect((await t.api("PUT", "/api/teams/appended", { name: "Appended" })).status).toBe(200);
    // A YAML body past 64 KiB is parsed on a worker thread, counted for this organization.
    const yaml = `name: Big\ndescription: "${"x".repeat(70 * 1024)}"\n`;
    expect((await t.api("PUT", "/api/teams/big-yaml", undefined, { raw: yaml, contentType: "application/yaml" })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { samples } = await scrape();
    expect(value(samples, "steward_feed_events_appended_total")).toBeGreaterThanOrEqual(before + 2);
    expect(samples.some((s) => s.name === "steward_nodejs_eventloop_lag_p99_seconds")).toBe(true);
    expect(value(samples, "steward_scheduler_lag_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(value(samples, "steward_worker_task_seconds_count", { organization: t.organizationId })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "steward_worker_tasks_in_flight", { organization: t.organizationId })).toBe(0);
    expect(samples.some((s) => s.name === "steward_worker_queue_depth")).toBe(true);
    expect(samples.some((s) => s.name === "steward_database_pool_waiting")).toBe(true);
    if (kind === "postgres") expect(value(samples, "steward_database_pool_connections")).toBeGreaterThanOrEqual(1);
  });

  it("shows long polls while they are held", async () => {
    // A new organization has no events yet: its long poll is held until one is appended.
    const quiet = await t.createOrganization(`quiet-${kind}`);
    const poll = request(t.url, "GET", "/api/events?longPolling=true", undefined, { key: quiet.key });
    let held = 0;
    for (let i = 0; i < 50 && held === 0; i++) {
      held = value((await scrape()).samples, "steward_long_polls_held");
      if (held === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(held).toBeGreaterThanOrEqual(1);
    await request(t.url, "PUT", "/api/teams/wake", { name: "Wake" }, { key: quiet.key });
    expect((await poll).status).toBe(200);
  });
});
