/**
 * Resource limits (docs/product.md §1) against a real server on each database: every limit answers a
 * problem naming it and changes nothing; slow clients are cut off with 408; a big specification or
 * YAML document is handled on a worker thread, so the server keeps answering others. No assertion
 * depends on how fast the machine is.
 */
import { connect, type Socket } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSchema } from "../src/schema-formats/index.js";
import { readYaml, writeYaml } from "../src/platform/yaml-document.js";
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

  it("holds every /auth route to AUTH_BODY_LIMIT_BYTES as configured (4 KiB here), not a fixed size", async () => {
    const big = { email: "a@b.c", password: "x".repeat(8 * 1024), token: "t" };
    for (const path of ["/auth/sign-in", "/auth/sign-out", "/auth/switch-organization", "/auth/invitation"]) {
      const body = expectProblem(await request(t.url, "POST", path, big), 413);
      expect(body.detail, path).toContain("AUTH_BODY_LIMIT_BYTES");
    }
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

  it("422 naming MAX_MODEL_FIELDS for ODCS and DCS 1.x contracts too, nested fields and array items counted; nothing stored", async () => {
    const odcs = (properties: unknown[]) => ({ apiVersion: "v3.0.2", kind: "DataContract", id: "wide-odcs", version: "1.0.0", status: "active", domain: "sales", schema: [{ name: "m", properties }] });
    const flat = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${i}` }));
    // 67 objects, each with one nested field and an array whose items count too: 201 fields.
    const nested = Array.from({ length: 67 }, (_, i) => ({ name: `o${i}`, logicalType: "array", items: { logicalType: "object", properties: [{ name: "x" }] } }));
    const dcsFields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, { type: "string" }]));
    const dcs = (fields: unknown, definitions?: unknown) => ({ dataContractSpecification: "1.1.0", id: "wide-dcs", info: { title: "W", version: "1.0.0", owner: "sales" }, models: { m: { fields } }, ...(definitions ? { definitions } : {}) });
    // A definition with 200 fields of its own, used once: 201 fields.
    const wide = { wide: { type: "object", fields: dcsFields(200) } };
    // 40 definitions that each use the next twice: 2 KB of text, 2^40 fields if every use were
    // expanded; each is described once, so it is stored, and its models are small.
    const bomb: Record<string, unknown> = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`d${i}`, { type: "object", fields: { a: { $ref: `#/definitions/d${i + 1}` }, b: { $ref: `#/definitions/d${i + 1}` } } }]));
    bomb.d40 = { type: "string" };
    for (const [id, doc, member] of [
      ["wide-odcs", odcs(flat(201)), "schema"],
      ["wide-odcs", odcs(nested), "schema"],
      ["wide-dcs", dcs(dcsFields(201)), "models"],
      ["wide-dcs", dcs({ x: { $ref: "#/definitions/wide" } }, wide), "models"],
    ] as const) {
      const body = expectProblem(await t.api("PUT", `/api/datacontracts/${id}`, doc), 422);
      expect(body.violations).toEqual([{ field: member, message: expect.stringContaining("more than the limit of 200 (MAX_MODEL_FIELDS)") }]);
    }
    expect((await t.api("GET", "/api/datacontracts/wide-odcs")).status).toBe(404);
    expect((await t.api("GET", "/api/datacontracts/wide-dcs")).status).toBe(404);
    // Within the limit it is stored; a proposal over it is refused the same way.
    expect((await t.api("PUT", "/api/datacontracts/wide-dcs", dcs(dcsFields(200)))).status).toBe(200);
    const proposed = expectProblem(await t.api("POST", "/api/datacontracts/wide-dcs/changes", dcs({ x: { $ref: "#/definitions/wide" } }, wide)), 422);
    expect(proposed.violations?.[0].message).toContain("MAX_MODEL_FIELDS");
    expect((await t.api("GET", "/api/datacontracts/wide-dcs/models")).body.models[0].fields).toHaveLength(200);
    expect((await t.api("PUT", "/api/datacontracts/bomb-dcs", { ...dcs({ x: { $ref: "#/definitions/d0" } }, bomb), id: "bomb-dcs" })).status).toBe(200);
    const models = await t.api("GET", "/api/datacontracts/bomb-dcs/models");
    expect(models.status).toBe(200);
    expect(models.text.length).toBeLessThan(10 * JSON.stringify(bomb).length);
  });

  it("lists the changes of a comparison within PAGE_LIMIT_BYTES, breaking ones first, and counts the rest", async () => {
    const odcs = (prefix: string) => ({ apiVersion: "v3.0.2", kind: "DataContract", id: "many", version: "1.0.0", status: "active", domain: "sales", schema: [{ name: "m", properties: Array.from({ length: 150 }, (_, i) => ({ name: `${prefix}${i}`, logicalType: i % 2 ? "string" : "integer" })) }] });
    expect((await t.api("PUT", "/api/datacontracts/many", odcs("a"))).status).toBe(200);
    expect((await t.api("PUT", "/api/datacontracts/many", odcs("b"))).status).toBe(200);
    for (const res of [await t.api("GET", "/api/datacontracts/many/changes"), await t.api("POST", "/api/datacontracts/many/changes", odcs("c"))]) {
      expect(res.status).toBe(200);
      const report = res.body as { breaking: boolean; changes: Array<{ breaking: boolean }>; omittedChanges?: number };
      expect(report.breaking).toBe(true);
      expect(report.changes.length).toBeGreaterThan(0);
      expect(report.changes.length + (report.omittedChanges ?? 0)).toBe(300);
      expect(report.omittedChanges).toBeGreaterThan(0);
      expect(report.changes[0].breaking).toBe(true);
      expect(res.text.length).toBeLessThan(12 * 1024);
    }
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

/** The longest time the event loop of this process (and of its server) was held while `work` ran. */
async function heldDuring<T>(work: () => Promise<T>): Promise<{ result: T; heldMs: number }> {
  const delays = monitorEventLoopDelay({ resolution: 5 });
  delays.enable();
  const result = await work();
  delays.disable();
  return { result, heldMs: delays.max / 1e6 };
}

/**
 * The server held its event loop for less than half the time that `inPlace`, the heavy part of the
 * request, takes on this machine: that part ran on a worker thread. Comparing with the same work
 * done here, rather than with a fixed bound, keeps the assertion independent of the machine's speed.
 */
function expectOffThread(heldMs: number, inPlace: () => unknown) {
  const started = performance.now();
  inPlace();
  const inPlaceMs = performance.now() - started;
  expect(heldMs, `event loop held ${Math.round(heldMs)} ms; the work takes ${Math.round(inPlaceMs)} ms in place`).toBeLessThan(inPlaceMs / 2);
}

describe("a big specification does not hold the event loop", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
  });
  afterAll(() => t?.close());

  it("keeps the event loop free while a 1 MB YAML specification parses", async () => {
    const columns = Array.from({ length: 20_000 }, (_, i) => `      - name: column_${i}\n        data_type: text`).join("\n");
    const spec = `version: 2\nmodels:\n  - name: wide\n    columns:\n${columns}\n`;
    expect(spec.length).toBeGreaterThan(900_000);
    const { result: res, heldMs } = await heldDuring(() => t.api("POST", "/api/schemas/validate", { type: "dbt", specification: spec }));
    expectOffThread(heldMs, () => parseSchema({ type: "dbt", specification: spec }, "", t.server.services.parsing.limits));
    expect(res.status).toBe(200);
    expect(res.body.models[0].fields).toHaveLength(20_000);
  });
});

/** An ODCS contract of `tables` tables of 100 columns as YAML text, about 18 kB per table. */
function wideContractYaml(id: string, tables: number, logicalTypeAt?: { table: number; column: number; value: string }): string {
  const lines = ["apiVersion: v3.1.0", "kind: DataContract", `id: ${id}`, "version: 1.0.0", "status: active", "team:", "  name: sales", "schema:"];
  for (let table = 0; table < tables; table++) {
    lines.push(`  - name: table_${table}`, "    physicalType: table", "    properties:");
    for (let column = 0; column < 100; column++) {
      const type = logicalTypeAt?.table === table && logicalTypeAt.column === column ? logicalTypeAt.value : "string";
      lines.push(`      - name: column_${column}`, `        logicalType: ${type}`, "        physicalType: varchar(255)", `        description: Column ${column} of table ${table}, described at some length`);
    }
  }
  return lines.join("\n") + "\n";
}

const yaml = { contentType: "application/yaml" };

describe.each(DATABASES)("a big YAML document does not hold the event loop (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind);
    await t.api("PUT", "/api/teams/sales", { name: "Sales" });
  });
  afterAll(() => t?.close());

  it("keeps the event loop free while a 1 MB YAML contract parses, and stores the contract", async () => {
    const text = wideContractYaml("wide", 66);
    expect(text.length).toBeGreaterThan(1_000_000);
    const { result: res, heldMs } = await heldDuring(() => t.api("PUT", "/api/datacontracts/wide", undefined, { ...yaml, raw: text }));
    expect(res.status, res.text).toBe(200);
    expectOffThread(heldMs, () => readYaml(text));
    const stored = await t.api("GET", "/api/datacontracts/wide");
    expect(stored.body).toEqual(parseYaml(text));
  });

  it("keeps the event loop free while a big contract is written as YAML, and writes the stored document", async () => {
    const stored = parseYaml(wideContractYaml("wide-read", 66));
    expect((await t.api("PUT", "/api/datacontracts/wide-read", stored)).status).toBe(200);
    const { result: res, heldMs } = await heldDuring(() => t.api("GET", "/api/datacontracts/wide-read/datacontract.yaml"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/yaml/);
    const document = parseYaml(res.text);
    expect(document).toEqual(stored);
    expectOffThread(heldMs, () => writeYaml(document));
  });

  it("gives the violations of a big YAML body their line and column; nothing stored", async () => {
    const text = wideContractYaml("wide-invalid", 66, { table: 41, column: 73, value: "strin" });
    const res = await t.api("PUT", "/api/datacontracts/wide-invalid", undefined, { ...yaml, raw: text });
    expect(res.status, res.text).toBe(422);
    const violation = res.body.violations.find((v: { field: string }) => v.field === "schema[41].properties[73].logicalType");
    const lines = text.split("\n");
    const line = lines.indexOf("        logicalType: strin") + 1;
    expect(line).toBeGreaterThan(0);
    expect(violation).toMatchObject({ line, column: "        logicalType: ".length + 1 });
    expect((await t.api("GET", "/api/datacontracts/wide-invalid")).status).toBe(404);
  });

  it.each([
    [
      "an alias bomb",
      ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]", ..."bcde".split("").map((name, i) => `${name}: &${name} [${Array(9).fill(`*${"abcd"[i]}`).join(", ")}]`)].join("\n") + "\n",
      /Excessive alias count/,
    ],
    ["nesting 300 levels deep", `x: ${"[".repeat(300)}${"]".repeat(300)}\n`, /deeper than 200 levels/],
  ])("refuses %s with 400, in place and on a worker thread alike; nothing stored", async (_name, hostile, detail) => {
    // The same document small, and padded with a comment past the size parsed in place.
    for (const [id, text] of [["hostile-small", hostile], ["hostile-big", `${hostile}# ${"x".repeat(70 * 1024)}\n`]]) {
      const res = await t.api("PUT", `/api/teams/${id}`, undefined, { ...yaml, raw: text });
      expect(res.status, res.text).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(res.body.detail).toMatch(detail);
      expect((await t.api("GET", `/api/teams/${id}`)).status).toBe(404);
    }
  });

  it("answers a big YAML body that does not parse with 400 and the line of the fault", async () => {
    // A second `kind` at the end: keys of a map must be unique.
    const text = wideContractYaml("wide-broken", 66) + "kind: DataContract\n";
    const res = await t.api("PUT", "/api/datacontracts/wide-broken", undefined, { ...yaml, raw: text });
    expect(res.status, res.text).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.body.detail).toMatch(new RegExp(`not valid YAML \\(line ${text.split("\n").length - 1}, column 1\\)`));
  });
});

describe("a big YAML body while every worker thread is busy", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite");
    await t.api("PUT", "/api/teams/sales", { name: "Sales" });
  });
  afterAll(() => t?.close());

  it("is refused with 429 and Retry-After, nothing stored, and accepted once they are free", async () => {
    // The server runs in this process: fill the organization's share of its workers with work of our own.
    const filler = wideContractYaml("filler", 20);
    const fill = Array.from({ length: 100 }, () => t.server.services.parsing.workers.run("parseYaml", filler, 60_000, t.organizationId).catch(() => undefined));
    const text = wideContractYaml("busy", 10);
    const res = await t.api("PUT", "/api/datacontracts/busy", undefined, { ...yaml, raw: text });
    expect(res.status, res.text).toBe(429);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body.detail).toMatch(/busy/);
    await Promise.all(fill);
    expect((await t.api("GET", "/api/datacontracts/busy")).status).toBe(404);
    const again = await t.api("PUT", "/api/datacontracts/busy", undefined, { ...yaml, raw: text });
    expect(again.status, again.text).toBe(200);
  });
});

describe("a YAML body that takes longer than SCHEMA_PARSE_TIMEOUT_MS to parse", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer("sqlite", { limits: { schemaParseTimeoutMs: 100 } });
    await t.api("PUT", "/api/teams/sales", { name: "Sales" });
  });
  afterAll(() => t?.close());

  it("is refused with 413 naming the limit; nothing stored", async () => {
    const text = wideContractYaml("slow", 200);
    expect(text.length).toBeGreaterThan(3_000_000);
    const res = await t.api("PUT", "/api/datacontracts/slow", undefined, { ...yaml, raw: text });
    expect(res.status, res.text).toBe(413);
    expect(res.body.detail).toMatch(/SCHEMA_PARSE_TIMEOUT_MS/);
    expect((await t.api("GET", "/api/datacontracts/slow")).status).toBe(404);
    // Other bodies still parse: a small one in place (a thread started anew can take longer than this deadline).
    const small = await t.api("PUT", "/api/datacontracts/small", undefined, { ...yaml, raw: wideContractYaml("small", 0).replace("schema:\n", "") });
    expect(small.status, small.text).toBe(200);
  });
});
