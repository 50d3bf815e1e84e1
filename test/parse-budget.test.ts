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
    // The bound is 100 ms, or three times the slowest quiet answer on a machine so busy that even
    // those take longer: a parse on the event loop would hold it for seconds either way.
    let quietMax = 0;
    for (let i = 0; i < 30; i++) {
      const started = performance.now();
      expect((await request(t.url, "GET", "/health/live")).status).toBe(200);
      quietMax = Math.max(quietMax, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const bound = Math.max(100, 3 * quietMax);
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
    // A machine shared with other work stalls any process now and then (a single answer of 302 ms
    // was seen beside a parallel test file, the loop's other answers in 2–50 ms): 95 % of the
    // answers must come within the bound and every one within five times it. A parse on the event
    // loop holds every answer during its second or more, so most of them would miss both.
    const sorted = [...latencies].sort((a, b) => a - b);
    const report = `health latencies ${latencies.map(Math.round).join(", ")}; event loop held up to ${Math.round(delays.max / 1e6)} ms; quiet up to ${Math.round(quietMax)} ms`;
    expect(sorted[Math.floor(sorted.length * 0.95)]!, report).toBeLessThan(bound);
    expect(sorted.at(-1)!, report).toBeLessThan(5 * bound);
    expect((await t.api("GET", "/api/teams/flood-7")).status).toBe(404);
  });

  it("refuses a read-only key's change, and a change the stored document rules out, before the body is read", async () => {
    const answer = await headersOnly(t.url, [
      "PUT /api/teams/sales HTTP/1.1",
      "host: x",
      "content-type: application/yaml",
      "content-length: 5000000",
      `x-api-key: ${readOnlyKey}`,
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    // A team key's change to what another team owns, as stored, is refused the same way.
    await t.api("PUT", "/api/teams/ops", { name: "Ops" });
    const contract = { dataContractSpecification: "1.2.1", id: "theirs", info: { title: "Theirs", version: "1.0.0", owner: "ops" } };
    expect((await t.api("PUT", "/api/datacontracts/theirs", contract)).status).toBe(200);
    const teamKey = (await t.api("POST", "/api/api-keys", { scope: "team", teamId: "sales" })).body.key;
    const takeover = await headersOnly(t.url, ["PUT /api/datacontracts/theirs HTTP/1.1", "host: x", "content-type: application/yaml", "content-length: 5000000", `x-api-key: ${teamKey}`]);
    expect(takeover).toMatch(/^HTTP\/1\.1 403/);
    const otherTeam = await headersOnly(t.url, ["PUT /api/teams/ops HTTP/1.1", "host: x", "content-type: application/json", "content-length: 5000000", `x-api-key: ${teamKey}`]);
    expect(otherTeam).toMatch(/^HTTP\/1\.1 403/);
    // Its own team's contract, and a new one, are judged with their body.
    expect((await t.api("PUT", "/api/datacontracts/mine", { ...contract, id: "mine", info: { ...contract.info, owner: "sales" } }, { key: teamKey })).status).toBe(200);
    expect((await t.api("PUT", "/api/datacontracts/grab", { ...contract, id: "grab" }, { key: teamKey })).status).toBe(403);
    // The same key may still post a body that reads: comparing a proposal.
    const res = await t.api("POST", "/api/schemas/validate", { type: "dbt", specification: "version: 2\nmodels: []\n" }, { key: readOnlyKey });
    expect(res.status).not.toBe(403);
    // And its refused change changed nothing.
    const refused = await t.api("PUT", "/api/teams/sales", { name: "Renamed" }, { key: readOnlyKey });
    expect(refused.status).toBe(403);
    expect((await t.api("GET", "/api/teams/sales")).body.name).toBe("Sales");
  });

  it("shares the worker threads per organization: one organization's flood queues or gets 429 for itself, another's write goes first", async () => {
    const other = await t.createOrganization("Other");
    expect((await request(t.url, "PUT", "/api/teams/ops", { name: "Ops" }, { key: other.key })).status).toBe(200);
    const text = manyKeys(6_500);
    expect(text.length).toBeGreaterThan(70_000);
    const finished: string[] = [];
    const flood = Array.from({ length: 20 }, (_, i) =>
      t.api("PUT", `/api/teams/flood-${i}`, undefined, { contentType: "application/yaml", raw: text }).then((res) => {
        finished.push(`flood ${res.status}`);
        return res;
      }),
    );
    // The flood is queued (or refused) before the other organization writes.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const team = ["name: Ops", "description: Operations", "custom:", ...Array.from({ length: 400 }, (_, i) => `  k${i}: v${i}`)].join("\n") + "\n";
    expect(team.length).toBeGreaterThan(4096);
    const write = await request(t.url, "PUT", "/api/teams/ops", undefined, { key: other.key, contentType: "application/yaml", raw: team });
    finished.push("other");
    expect(write.status, write.text.slice(0, 300)).toBe(200);
    const statuses = (await Promise.all(flood)).map((res) => res.status);
    for (const status of statuses) expect([422, 429]).toContain(status);
    expect(statuses.filter((status) => status === 429).length, "the flood past its share is refused").toBeGreaterThan(0);
    // The other organization waited for at most what was running when it came, not for the flood's queue.
    const parsedAfter = finished.slice(finished.indexOf("other") + 1).filter((f) => f === "flood 422").length;
    expect(parsedAfter, finished.join(", ")).toBeGreaterThanOrEqual(3);
  });

  it("counts a big specification parsed by a handler against its organization's share", async () => {
    const other = await t.createOrganization("Third");
    // The server runs in this process: fill this organization's share with work of our own.
    const filler = manyKeys(6_500);
    const fill = Array.from({ length: 40 }, () => t.server.services.parsing.workers.run("parseYaml", filler, 60_000, t.organizationId).catch(() => undefined));
    const columns = Array.from({ length: 3_000 }, (_, i) => `      - name: column_${i}`).join("\n");
    const spec = { type: "dbt", specification: `version: 2\nmodels:\n  - name: wide\n    columns:\n${columns}\n` };
    expect(spec.specification.length).toBeGreaterThan(64 * 1024);
    const mine = await t.api("POST", "/api/schemas/validate", spec);
    const theirs = await request(t.url, "POST", "/api/schemas/validate", spec, { key: other.key });
    await Promise.all(fill);
    expect(mine.status, mine.text.slice(0, 200)).toBe(429);
    expect(mine.body.detail).toMatch(/WORKER_QUEUE_PER_ORGANIZATION/);
    expect(theirs.status, theirs.text.slice(0, 200)).toBe(200);
  });

  it("parses a big JSON body in slices: the same document, the same refusals", async () => {
    const custom = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, { list: [i, `v${i}`, null, true], nested: { deep: [[i]] } }]));
    const team = { name: "Big", custom };
    const text = JSON.stringify(team);
    expect(text.length).toBeGreaterThan(256 * 1024);
    expect((await t.api("PUT", "/api/teams/big-json", undefined, { contentType: "application/json", raw: text })).status).toBe(200);
    expect((await t.api("GET", "/api/teams/big-json")).body.custom).toEqual(custom);
    const small = await t.api("PUT", "/api/teams/broken", undefined, { contentType: "application/json", raw: '{"name": "x",}' });
    for (const broken of [text.slice(0, -2) + ",}", text.replace('"k5":', '"k5"'), text + "]", text.replace('"k7":', '"__proto__":')]) {
      const res = await t.api("PUT", "/api/teams/broken", undefined, { contentType: "application/json", raw: broken });
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      if (!broken.includes("__proto__")) expect(res.body.detail).toBe(small.body.detail);
    }
    const huge = await t.api("PUT", "/api/teams/broken", undefined, { contentType: "application/json", raw: text.replace('"k9":{"list":[9,', '"k9":{"list":[1e999,') });
    expect(huge.status).toBe(400);
    expect(huge.body.detail).toContain("custom.k9.list[0]");
    expect((await t.api("GET", "/api/teams/broken")).status).toBe(404);
  });
});
