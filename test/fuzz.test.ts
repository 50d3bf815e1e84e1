import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { startTestServer, type TestServer } from "./helpers/server.js";

/** Small seeded generator so a failure can be replayed from its seed. */
function prng(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  return { next, int, pick };
}

const PATHS = [
  "/api/teams",
  "/api/teams/{id}",
  "/api/api-keys",
  "/api/api-keys/{id}",
  "/api/events",
  "/api/openapi.json",
  "/api/dataproducts/{id}",
  "/api/datacontracts/{id}",
  "/api/access/{id}",
  "/api/access/{id}/approve",
  "/api/schemas/validate",
  "/health/ready",
  "/api/{id}",
  "/{id}",
];
const METHODS = ["GET", "PUT", "POST", "DELETE", "PATCH", "HEAD", "OPTIONS"] as const;
const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "text/plain", "application/xml", "multipart/form-data", "application/x-www-form-urlencoded", "application/merge-patch+json", "", "application/json; charset=latin1"];

function randomText(r: ReturnType<typeof prng>, max: number): string {
  const alphabet = ["a", "Z", "0", "/", "%", "%2F", "%00", "..", "?", "#", "&", "=", " ", "é", "😀", "\\", "'", '"', "{", "}", "[", "]", "\u0000", "~", ";"];
  let out = "";
  const n = r.int(max);
  for (let i = 0; i < n; i++) out += r.pick(alphabet);
  return out;
}

function randomJson(r: ReturnType<typeof prng>, depth = 0): unknown {
  const choice = r.int(depth > 4 ? 5 : 8);
  switch (choice) {
    case 0: return null;
    case 1: return r.next() < 0.5;
    case 2: return r.pick([0, -1, 1e308, -1e-308, 2 ** 63, 3.14, Number.MAX_SAFE_INTEGER]);
    case 3: return randomText(r, 40);
    case 4: return r.pick(["", "organization", "team", "2026-01-01", "core", "x".repeat(5000)]);
    case 5: return Array.from({ length: r.int(5) }, () => randomJson(r, depth + 1));
    default: {
      const keys = ["id", "name", "displayName", "scope", "teamId", "expiresAt", "members", "emailAddress", "tags", "links", "custom", "info", "schema", "type", "specification", "__proto__", "constructor", randomText(r, 8)];
      const o: Record<string, unknown> = {};
      for (let i = r.int(6); i > 0; i--) o[r.pick(keys)] = randomJson(r, depth + 1);
      return o;
    }
  }
}

function randomBody(r: ReturnType<typeof prng>): string | Uint8Array | undefined {
  switch (r.int(8)) {
    case 0: return undefined;
    case 1: return "";
    case 2: return JSON.stringify(randomJson(r)).slice(0, r.int(200));
    case 3: return new Uint8Array(Array.from({ length: r.int(300) }, () => r.int(256)));
    case 4: return "[".repeat(5000 + r.int(50_000));
    case 5: return r.next() < 0.5 ? '{"a":'.repeat(2000) : `{"name":"n","custom":{"x":${"[".repeat(100 + r.int(5000))}${"]".repeat(5100)}}}`;
    default: return JSON.stringify(randomJson(r));
  }
}

describe.each(DATABASES)("malformed requests never produce a 5xx (%s)", (kind) => {
  let t: TestServer;
  let teamKey: string;
  beforeAll(async () => {
    t = await startTestServer(kind);
    await t.api("PUT", "/api/teams/core", { name: "Core" });
    teamKey = (await t.api("POST", "/api/api-keys", { displayName: "k", scope: "team", teamId: "core" })).body.key;
  });
  afterAll(() => t?.close());

  it("survives 2,000 randomized malformed requests", { timeout: 120_000 }, async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261121);
    const r = prng(seed);
    const failures: string[] = [];
    const send = async (i: number) => {
      const method = r.pick(METHODS);
      const idText = r.next() < 0.7 ? encodeURIComponent(randomText(r, 20)) || "x" : randomText(r, 300);
      let path = r.pick(PATHS).replace("{id}", idText);
      if (r.next() < 0.5) path += `?${r.pick(["p", "pageSize", "lastEventId", "longPolling", "q", randomText(r, 5)])}=${encodeURIComponent(randomText(r, 10))}`;
      const headers: Record<string, string> = {};
      const keyChoice = r.int(10);
      if (keyChoice < 6) headers["x-api-key"] = t.key;
      else if (keyChoice < 8) headers["x-api-key"] = teamKey;
      else if (keyChoice < 9) headers.authorization = `Bearer ${randomText(r, 50).replace(/[^\x20-\x7e]/g, "")}`;
      const body = method === "GET" || method === "HEAD" ? undefined : randomBody(r);
      const contentType = r.pick(CONTENT_TYPES);
      if (body !== undefined && contentType) headers["content-type"] = contentType;
      let res: Response;
      try {
        res = await fetch(t.url + path.replace(/ /g, "%20"), { method, headers, body: body as any });
      } catch (error) {
        // A URL or header fetch itself refuses to send never reached the server.
        if (error instanceof TypeError) return;
        throw error;
      }
      const text = await res.text();
      if (res.status >= 500) failures.push(`#${i} ${method} ${path} → ${res.status} ${text.slice(0, 200)}`);
      else if (res.status >= 400 && method !== "HEAD" && !/problem\+json/.test(res.headers.get("content-type") ?? "")) {
        failures.push(`#${i} ${method} ${path} → ${res.status} without problem+json`);
      }
    };
    for (let i = 0; i < 2000; i += 8) await Promise.all(Array.from({ length: 8 }, (_, j) => send(i + j)));
    expect(failures, `seed ${seed}`).toEqual([]);
    // The server still serves normal traffic afterwards.
    expect((await t.api("GET", "/api/teams/core")).status).toBe(200);
  });
});
