/**
 * No body parse holds the server (docs/security.md, "Resource limits"): YAML bodies past a few
 * kilobytes are parsed on a worker thread, so health checks keep answering while many are parsed;
 * a read-only key is refused a change before its body is even read.
 */
import { connect } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { request, startTestServer, type TestServer } from "./helpers/server.js";

/**
 * A team as YAML with `keys` members under `custom`, about 64 KB for 6,000 keys, whose name is
 * not text: the server parses it whole and refuses it (422), so what the flood costs the server
 * is the parse, not storing the documents.
 */
function manyKeys(keys: number): string {
  const lines = ["name: 42", "custom:"];
  for (let i = 0; i < keys; i++) lines.push(`  k${i}: v${i}`);
  return lines.join("\n") + "\n";
}

/** What a raw connection receives first, for a request whose body is never sent. */
function headersOnly(url: string, head: string[]): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head.join("\r\n") + "\r\n\r\n"));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString();
      if (received.includes("\r\n\r\n")) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on("error", reject);
    socket.setTimeout(5000, () => {
      socket.destroy();
      resolve(received);
    });
  });
}

describe.each(DATABASES)("body parsing within a budget (%s)", (kind) => {
  let t: TestServer;
  let readOnlyKey: string;
  beforeAll(async () => {
    t = await startTestServer(kind);
    await t.api("PUT", "/api/teams/sales", { name: "Sales" });
    readOnlyKey = (await t.api("POST", "/api/api-keys", { scope: "team_read", teamId: "sales" })).body.key;
  });
  afterAll(() => t?.close());

  it("answers /health/live within 100 ms throughout 8 parallel 64 KB many-key YAML bodies", async () => {
    const text = manyKeys(6_000);
    expect(text.length).toBeGreaterThan(64_000);
    expect(text.length).toBeLessThan(128 * 1024);
    // Warm up: the first request of a route compiles its schemas, the first big body starts a worker thread.
    expect((await t.api("PUT", "/api/teams/flood-0", undefined, { contentType: "application/yaml", raw: text })).status).toBe(422);
    const delays = monitorEventLoopDelay({ resolution: 5 });
    delays.enable();
    let done = false;
    const flood = Promise.all(
      Array.from({ length: 8 }, (_, i) => t.api("PUT", `/api/teams/flood-${i}`, undefined, { contentType: "application/yaml", raw: text })),
    ).finally(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const started = performance.now();
      const res = await request(t.url, "GET", "/health/live");
      latencies.push(performance.now() - started);
      expect(res.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    delays.disable();
    for (const res of await flood) {
      expect(res.status, res.text.slice(0, 300)).toBe(422);
      expect(res.body.violations).toEqual([expect.objectContaining({ field: "name", line: 1 })]);
    }
    expect(latencies.length).toBeGreaterThan(2);
    expect(Math.max(...latencies), `health latencies ${latencies.map(Math.round).join(", ")}; event loop held up to ${Math.round(delays.max / 1e6)} ms`).toBeLessThan(100);
    expect((await t.api("GET", "/api/teams/flood-7")).status).toBe(404);
  });

  it("refuses a read-only key's change before its body is read", async () => {
    const answer = await headersOnly(t.url, [
      "PUT /api/teams/sales HTTP/1.1",
      "host: x",
      "content-type: application/yaml",
      "content-length: 5000000",
      `x-api-key: ${readOnlyKey}`,
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    // The same key may still post a body that reads: comparing a proposal.
    const res = await t.api("POST", "/api/schemas/validate", { type: "dbt", specification: "version: 2\nmodels: []\n" }, { key: readOnlyKey });
    expect(res.status).not.toBe(403);
    // And its refused change changed nothing.
    const refused = await t.api("PUT", "/api/teams/sales", { name: "Renamed" }, { key: readOnlyKey });
    expect(refused.status).toBe(403);
    expect((await t.api("GET", "/api/teams/sales")).body.name).toBe("Sales");
  });
});
