import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "./helpers/databases.js";
import { request, startTestServer, type TestServer } from "./helpers/server.js";

describe.each(DATABASES)("HTTP conventions (%s)", (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, { bodyLimitBytes: 64 * 1024 });
    await t.api("PUT", "/api/teams/core", { name: "Core" });
    await t.api("POST", "/api/api-keys", { displayName: "pin", scope: "team", teamId: "core" });
  });
  afterAll(() => t?.close());

  const expectProblem = (res: { status: number; headers: Headers; body: any; text: string }, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: expect.stringMatching(/^urn:steward:problem:/), title: expect.any(String), status, detail: expect.any(String), instance: expect.stringMatching(/^\//) });
    expect(res.text).not.toMatch(/\n\s+at /);
    return res.body;
  };

  it("400 for malformed JSON", async () => {
    const body = expectProblem(await t.api("PUT", "/api/teams/x", undefined, { raw: '{"name": "x",' }), 400);
    expect(body.detail).toMatch(/JSON/);
    expect(body.instance).toBe("/api/teams/x");
  });

  it("400 for a malformed query and path", async () => {
    expectProblem(await t.api("GET", "/api/teams?p=-3"), 400);
    expectProblem(await t.api("GET", "/api/events?lastEventId=123"), 400);
    expectProblem(await t.api("GET", `/api/teams/${"z".repeat(300)}`), 400);
    // Broken percent-encoding, as for the path: a bad escape and half a UTF-8 character.
    for (const query of ["q=%ZZ", "q=%E0%A4%A", "q=%FF", "p=0&q=%"]) {
      expect(expectProblem(await t.api("GET", `/api/teams?${query}`), 400).detail, query).toMatch(/query string/);
    }
    expect((await t.api("GET", "/api/teams?q=%41%20b")).status).toBe(200);
  });

  it("401 without a key, 403 for a team key outside its team", async () => {
    expectProblem(await t.api("GET", "/api/teams", undefined, { key: null }), 401);
    const teamKey = (await t.api("POST", "/api/api-keys", { displayName: "k", scope: "team", teamId: "core" })).body.key;
    expectProblem(await t.api("GET", "/api/api-keys", undefined, { key: teamKey }), 403);
  });

  it("404 for unknown routes and unknown resources", async () => {
    expectProblem(await t.api("GET", "/api/nothing-here"), 404);
    expectProblem(await request(t.url, "GET", "/nothing/at/all"), 404);
    const body = expectProblem(await t.api("GET", "/api/teams/ghost"), 404);
    expect(body.detail).toContain("ghost");
  });

  it("405 with Allow for a known path and a wrong method", async () => {
    const res = await t.api("PATCH", "/api/teams/core", { name: "x" });
    expectProblem(res, 405);
    expect(res.headers.get("allow")).toContain("PUT");
    expectProblem(await t.api("POST", "/api/events", {}), 405);
  });

  it("409 for a delete of a resource still in use", async () => {
    expectProblem(await t.api("DELETE", "/api/teams/core"), 409);
  });

  it("413 for a body over the limit", async () => {
    const body = expectProblem(await t.api("PUT", "/api/teams/big", { name: "x".repeat(70 * 1024) }), 413);
    expect(body.detail).toMatch(/65536/);
    expect((await t.api("GET", "/api/teams/big")).status).toBe(404);
  });

  it("415 for a body that is not JSON", async () => {
    expectProblem(await t.api("PUT", "/api/teams/x", undefined, { raw: "name=x", contentType: "application/x-www-form-urlencoded" }), 415);
    expectProblem(await t.api("PUT", "/api/teams/x", undefined, { raw: "hello", contentType: "text/plain" }), 415);
  });

  it("422 with a violation per problem, each naming its field", async () => {
    const body = expectProblem(await t.api("PUT", "/api/teams/x", { name: 7, tags: [1, "ok"], members: "none" }), 422);
    expect(body.violations.map((v: any) => v.field).sort()).toEqual(["members", "name", "tags[0]"]);
    for (const v of body.violations) expect(v.message).toEqual(expect.any(String));
  });

  it("422 for a JSON body that is not an object", async () => {
    expectProblem(await t.api("PUT", "/api/teams/x", [1, 2]), 422);
    expectProblem(await t.api("PUT", "/api/teams/x", "just a string"), 422);
    expectProblem(await t.api("PUT", "/api/teams/x", null), 422);
  });

  it("400 for a body nested deeper than 200 levels; 150 levels are stored and read back", async () => {
    const nested = (depth: number) => `{"name":"deep","custom":{"x":${"[".repeat(depth)}"[{\\"\\\\"${"]".repeat(depth)}}}`;
    expectProblem(await t.api("PUT", "/api/teams/deep", undefined, { raw: nested(20_000) }), 400);
    expectProblem(await t.api("PUT", "/api/teams/deep", undefined, { raw: nested(199) }), 400);
    expect((await t.api("PUT", "/api/teams/deep", undefined, { raw: nested(150) })).status).toBe(200);
    expect(JSON.stringify((await t.api("GET", "/api/teams/deep")).body.custom)).toBe(`{"x":${"[".repeat(150)}"[{\\"\\\\"${"]".repeat(150)}}`);
  });

  it("400 with the same depth message for YAML nested deeper than 200 levels, flow or block; nothing stored", async () => {
    const yaml = { contentType: "application/yaml" };
    for (const raw of [`name: x\ncustom: ${"[".repeat(3000)}${"]".repeat(3000)}\n`, `name: x\ncustom:\n  ${"- ".repeat(3000)}x\n`]) {
      const body = expectProblem(await t.api("PUT", "/api/teams/deep-yaml", undefined, { ...yaml, raw }), 400);
      expect(body.detail).toBe("The request body nests arrays and objects deeper than 200 levels.");
    }
    expect((await t.api("GET", "/api/teams/deep-yaml")).status).toBe(404);
  });

  it("400 naming the member for numbers out of JSON's range and YAML values JSON cannot carry; nothing stored", async () => {
    const json = expectProblem(await t.api("PUT", "/api/teams/huge", undefined, { raw: '{"name":"x","custom":{"n":1e999999}}' }), 400);
    expect(json.violations).toEqual([{ field: "custom.n", message: expect.stringContaining("not a finite number") }]);
    const yaml = { contentType: "application/yaml" };
    for (const [value, message] of [[".inf", /not a finite number/], ["-.inf", /not a finite number/], [".nan", /not a finite number/], ["1e999", /not a finite number/], ["!!binary aGVsbG8=", /binary/], ["!!set {a, b}", /set/], ["!!omap [a: 1]", /ordered map/]] as const) {
      const body = expectProblem(await t.api("PUT", "/api/teams/huge", undefined, { ...yaml, raw: `name: x\ncustom:\n  v: ${value}\n` }), 400);
      expect(body.violations).toEqual([{ field: "custom.v", message: expect.stringMatching(message), line: 3, column: expect.any(Number) }]);
    }
    expect((await t.api("GET", "/api/teams/huge")).status).toBe(404);
    // Exponents and long digit runs in strings, and large finite numbers, are fine.
    const fine = await t.api("PUT", "/api/teams/huge", undefined, { raw: '{"name":"1e999","custom":{"n":1e308,"s":"9e999"}}' });
    expect(fine.status, fine.text).toBe(200);
    expect(fine.body.custom).toEqual({ n: 1e308, s: "9e999" });
  });

  it("400 for an empty body where a document is required; an optional body may still be empty", async () => {
    for (const raw of ["", "   \n"]) {
      expect(expectProblem(await t.api("PUT", "/api/teams/empty", undefined, { raw }), 400).detail).toMatch(/empty/);
      expect(expectProblem(await t.api("PUT", "/api/teams/empty", undefined, { raw, contentType: "application/yaml" }), 400).detail).toMatch(/empty/);
    }
    // No body and no content type at all is the same mistake.
    expect(expectProblem(await t.api("PUT", "/api/teams/empty"), 400).detail).toMatch(/empty/);
    expect(expectProblem(await t.api("POST", "/api/access"), 400).detail).toMatch(/empty/);
    expect((await t.api("GET", "/api/teams/empty")).status).toBe(404);
    // The body of a provisioning report is optional: no body is not malformed (the access is unknown).
    expectProblem(await t.api("POST", "/api/access/unknown/provisioning/provisioning-started", undefined, { raw: "" }), 404);
    expectProblem(await t.api("POST", "/api/access/unknown/approve"), 404);
  });

  it("400 for a body that is not UTF-8, JSON or YAML; nothing stored", async () => {
    const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    for (const contentType of ["application/json", "application/yaml"]) {
      const res = await fetch(`${t.url}/api/teams/latin`, { method: "PUT", headers: { "x-api-key": t.key, "content-type": contentType }, body: bytes });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/UTF-8/);
    }
    expect((await t.api("GET", "/api/teams/latin")).status).toBe(404);
  });

  it("accepts JSON under an application/*+json media type", async () => {
    const res = await t.api("PUT", "/api/teams/plus", { name: "Plus" }, { contentType: "application/vnd.steward+json" });
    expect(res.status).toBe(200);
  });

  it("ignores prototype-polluting keys instead of failing", async () => {
    const res = await t.api("PUT", "/api/teams/proto", undefined, { raw: '{"name":"P","__proto__":{"admin":true}}' });
    expect(res.status).toBeLessThan(500);
    expect(({} as any).admin).toBeUndefined();
  });

  it("stores text with NUL characters in documents, and refuses them in ids", async () => {
    const res = await t.api("PUT", "/api/teams/nul", { name: "a\u0000b", description: "c\u0000" });
    expect(res.status).toBe(200);
    expect((await t.api("GET", "/api/teams/nul")).body.name).toBe("a\u0000b");
    expectProblem(await t.api("GET", "/api/teams/a%00b"), 400);
    expectProblem(await t.api("GET", "/api/teams?q=%00"), 400);
  });

  it("serves health without a key", async () => {
    expect((await request(t.url, "GET", "/health/live")).body).toEqual({ status: "ok" });
    expect((await request(t.url, "GET", "/health/ready")).body).toEqual({ status: "ok" });
  });
});
