/**
 * Resource limits (PRODUCT.md §1) against a real server on each database: every limit answers a
 * problem naming it and changes nothing; slow clients are cut off with 408; a big specification
 * does not stop the server from answering others. No assertion depends on how fast the machine is.
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { request, startTestServer, type ApiResponse, type TestServer } from "./helpers/server.js";

function expectProblem(res: ApiResponse, status: number) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  return res.body as { detail: string; violations?: Array<{ field: string; message: string }> };
}

/** Everything a raw connection receives until the server closes it. */
function untilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString()));
    socket.on("close", () => resolve(received));
    socket.on("error", () => undefined);
  });
}

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on("error", reject);
  });
}

function avroBomb(levels: number): string {
  let inner: unknown = { type: "record", name: `T${levels}`, fields: [{ name: "v", type: "string" }] };
  for (let i = levels - 1; i >= 0; i--) {
    inner = { type: "record", name: `T${i}`, fields: [{ name: "a", type: inner }, { name: "b", type: `T${i + 1}` }] };
  }
  return JSON.stringify(inner);
}

const contract = (schema: unknown) => ({
  dataContractSpecification: "0.9.3",
  info: { title: "Orders", version: "1.0.0", owner: "sales" },
  schema,
});

describe.each(DATABASES)("resource limits (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, {
      limits: {
        requestTimeoutMs: 1500,
        headersTimeoutMs: 1000,
        documentBytes: 64 * 1024,
        specificationBytes: 32 * 1024,
        modelFields: 200,
        pageBytes: 8 * 1024,
        authBodyBytes: 4 * 1024,
        connections: 40,
      },
    });
    await t.api("PUT", "/api/teams/sales", { name: "Sales" });
  });
  afterAll(() => t?.close());

  it("408 and a closed connection for a body sent too slowly, before any key is checked", async () => {
    for (const [path, key] of [["/auth/sign-in", undefined], ["/api/teams/slow", t.key]] as const) {
      const socket = await open(t.url);
      const closed = untilClosed(socket);
      const headers = [`PUT ${path} HTTP/1.1`, "host: x", "content-type: application/json", "content-length: 1000"];
      if (key) headers.push(`x-api-key: ${key}`);
      socket.write(`${headers.join("\r\n")}\r\n\r\n{`);
      // One more byte now and then, as the attack does: never the whole body.
      const drip = setInterval(() => socket.writable && socket.write(" "), 200);
      const received = await closed;
      clearInterval(drip);
      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(received).toContain("application/problem+json");
      expect(received).toContain("REQUEST_TIMEOUT_MS");
    }
    expect((await t.api("GET", "/api/teams/slow")).status).toBe(404);
  });

  it("408 for headers that never end", async () => {
    const socket = await open(t.url);
    const closed = untilClosed(socket);
    socket.write("GET /health/live HTTP/1.1\r\nhost: x\r\n");
    const drip = setInterval(() => socket.writable && socket.write("x-slow: 1\r\n"), 200);
    const received = await closed;
    clearInterval(drip);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("413 for a big body to sign-in, which needs no key", async () => {
    const body = expectProblem(await request(t.url, "POST", "/auth/sign-in", { email: "a@b.c", password: "x".repeat(200 * 1024) }), 413);
    expect(body.detail).toContain("AUTH_BODY_LIMIT_BYTES");
  });

  it("413 for a catalog document over DOCUMENT_LIMIT_BYTES; nothing stored", async () => {
    const body = expectProblem(await t.api("PUT", "/api/teams/huge", { name: "Huge", description: "x".repeat(70 * 1024) }), 413);
    expect(body.detail).toContain("DOCUMENT_LIMIT_BYTES");
    expect((await t.api("GET", "/api/teams/huge")).status).toBe(404);
  });

  it("422 for a specification over SPECIFICATION_LIMIT_BYTES, custom ones too", async () => {
    for (const type of ["dbt", "custom"]) {
      const spec = type === "dbt" ? `version: 2\nmodels:\n  - name: m\n    description: "${"x".repeat(40 * 1024)}"\n` : "x".repeat(40 * 1024);
      const body = expectProblem(await t.api("PUT", "/api/datacontracts/big-spec", contract({ type, specification: spec })), 422);
      expect(body.violations).toEqual([{ field: "schema.specification", message: expect.stringContaining("SPECIFICATION_LIMIT_BYTES") }]);
    }
    expect((await t.api("GET", "/api/datacontracts/big-spec")).status).toBe(404);
  });

  it("422 for a contract whose models would have more than MAX_MODEL_FIELDS fields", async () => {
    const columns = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `      - name: c${from + i}\n        data_type: text`).join("\n");
    const dbt = (n: number, from = 0) => `version: 2\nmodels:\n  - name: m${from}\n    columns:\n${columns(n, from)}\n`;
    // One schema over the limit, and two schemas that are only over it together.
    for (const schema of [{ type: "dbt", specification: dbt(210) }, [{ type: "dbt", specification: dbt(110) }, { type: "dbt", specification: dbt(110, 1000) }]]) {
      const body = expectProblem(await t.api("PUT", "/api/datacontracts/wide", contract(schema)), 422);
      expect(body.violations?.[0].message).toContain("MAX_MODEL_FIELDS");
    }
    expect((await t.api("PUT", "/api/datacontracts/wide", contract({ type: "dbt", specification: dbt(150) }))).status).toBe(200);
  });

  it("stores the 1.9 KB Avro bomb and serves small models for it", async () => {
    const spec = avroBomb(24);
    expect((await t.api("PUT", "/api/datacontracts/bomb", contract({ type: "avro", specification: spec }))).status).toBe(200);
    const res = await t.api("GET", "/api/datacontracts/bomb/models");
    expect(res.status).toBe(200);
    expect(res.text.length).toBeLessThan(20 * spec.length);
    expect(res.body.models[0].fields[1]).toMatchObject({ name: "b", ref: "T1" });
    expect(res.body.definitions.map((d: { name: string }) => d.name)).toContain("T1");
    expect(res.body.schemas[0].definitions).toEqual(res.body.definitions);
  });

  it("keeps list pages within PAGE_LIMIT_BYTES and links to the rest", async () => {
    for (let i = 0; i < 6; i++) {
      expect((await t.api("PUT", `/api/teams/paged-${i}`, { name: `Paged ${i}`, type: "paged", description: "d".repeat(3000) })).status).toBe(200);
    }
    const seen: string[] = [];
    let next: string | undefined = "/api/teams?pageSize=1000";
    while (next) {
      const res: ApiResponse = await t.api("GET", next);
      expect(res.status).toBe(200);
      expect(res.text.length).toBeLessThanOrEqual(8 * 1024 + 3500);
      expect(res.body.length).toBeGreaterThan(0);
      seen.push(...res.body.map((team: { id: string }) => team.id));
      next = /<([^>]+)>; rel="next"/.exec(res.headers.get("link") ?? "")?.[1];
    }
    expect(seen.filter((id) => id.startsWith("paged-"))).toEqual(["paged-0", "paged-1", "paged-2", "paged-3", "paged-4", "paged-5"]);
    expect(seen[0]).toBe("sales");
  });

  it("refuses connections past MAX_CONNECTIONS and serves again when some close", async () => {
    const held = await Promise.all(Array.from({ length: 40 }, () => open(t.url)));
    const extra = await open(t.url).catch(() => undefined);
    if (extra) {
      const received = await untilClosed(extra.on("data", () => undefined));
      expect(received).toBe("");
    }
    for (const socket of held) socket.destroy();
    // The server notices closed sockets on its own schedule; poll until it answers again.
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = await request(t.url, "GET", "/health/live").then((r) => r.status, () => 0);
    }
    expect(status).toBe(200);
  });
});

describe("a big specification does not hold the event loop", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(() => t?.close());

  it("answers /health/live while a 1 MB YAML specification parses", async () => {
    const columns = Array.from({ length: 20_000 }, (_, i) => `      - name: column_${i}\n        data_type: text`).join("\n");
    const spec = `version: 2\nmodels:\n  - name: wide\n    columns:\n${columns}\n`;
    expect(spec.length).toBeGreaterThan(900_000);
    const order: string[] = [];
    const validating = t.api("POST", "/api/schemas/validate", { type: "dbt", specification: spec }).then((res) => {
      order.push("validate");
      return res;
    });
    // Health checks one after another while the parse runs: every one is answered before it ends.
    for (let i = 0; i < 5; i++) {
      expect((await request(t.url, "GET", "/health/live")).status).toBe(200);
      order.push("health");
    }
    const res = await validating;
    expect(res.status).toBe(200);
    expect(res.body.models[0].fields).toHaveLength(20_000);
    expect(order).toEqual(["health", "health", "health", "health", "health", "validate"]);
  });
});
