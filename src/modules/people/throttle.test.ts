import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../platform/clock.js";
import { loadConfig } from "../../platform/config.js";
import { startServer, type RunningServer } from "../../server.js";
import { DATABASES } from "../../../test/helpers/databases.js";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { refusingRule, THROTTLE_RULES } from "./throttle.js";

describe("the throttle's rules", () => {
  it("refuses a client that guesses one address, or many", () => {
    expect(refusingRule({ pair: 4, client: 4, address: 4 })).toBeUndefined();
    expect(refusingRule({ pair: 5, client: 5, address: 5 })?.counter).toBe("pair");
    expect(refusingRule({ pair: 0, client: 30, address: 0 })?.counter).toBe("client");
  });

  it("stops clients that failed on a much-guessed address, never one that did not", () => {
    expect(refusingRule({ pair: 1, client: 1, address: 10 })?.counter).toBe("address");
    expect(refusingRule({ pair: 0, client: 0, address: 10_000 })).toBeUndefined();
    expect(THROTTLE_RULES.filter((r) => !r.onlyClientsThatFailed).map((r) => r.counter)).not.toContain("address");
  });
});

/** Signs in over loopback from a chosen source address (all of 127.0.0.0/8 reaches the server). */
async function signInFrom(url: string, client: string, email: string, password: string): Promise<number> {
  return (await signInAnswer(url, client, email, password)).status;
}

function signInAnswer(url: string, client: string, email: string, password: string): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ email, password });
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, path: "/auth/sign-in", method: "POST", localAddress: client, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe.each(DATABASES)("sign-in throttling (%s)", (kind) => {
  let t: TestServer;
  let second: RunningServer;
  const clock = new ManualClock("2026-06-01T12:00:00.000Z");

  beforeAll(async () => {
    t = await startTestServer(kind, {}, clock);
    // A second process on the same database: the counts must be the same there.
    second = await startServer(
      loadConfig({}, { port: 0, host: "127.0.0.1", databaseUrl: t.database.url, bootstrap: false, logLevel: "silent", passwordLog2Cost: 14 }),
      { clock, logger: false },
    );
    await t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, t.organizationId, "vic@example.com", "owner", "vic's password"));
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  it("does not lock a person out when strangers guess their address", async () => {
    for (const stranger of ["127.0.0.2", "127.0.0.3"]) {
      for (let i = 0; i < 5; i++) expect(await signInFrom(t.url, stranger, "vic@example.com", `guess ${i}`)).toBe(401);
      expect(await signInFrom(t.url, stranger, "vic@example.com", "vic's password")).toBe(429);
    }
    // Ten failures on the address: a new stranger gets one try, and is stopped after it.
    expect(await signInFrom(t.url, "127.0.0.4", "vic@example.com", "guess")).toBe(401);
    const refused = await signInAnswer(t.url, "127.0.0.4", "vic@example.com", "vic's password");
    expect(refused.status).toBe(429);
    // The person is told how long to wait, not just "later".
    expect(JSON.parse(refused.body).detail).toMatch(/Try again in \d+ (seconds|minutes)\./);
    // Vic, from a client that never failed, signs in at once, on either process.
    expect(await signInFrom(t.url, "127.0.0.1", "vic@example.com", "vic's password")).toBe(200);
    expect(await signInFrom(second.url, "127.0.0.1", "vic@example.com", "vic's password")).toBe(200);
  });

  it("shares the counts between processes", async () => {
    for (let i = 0; i < 3; i++) expect(await signInFrom(t.url, "127.0.0.5", "wes@example.com", `guess ${i}`)).toBe(401);
    for (let i = 3; i < 5; i++) expect(await signInFrom(second.url, "127.0.0.5", "wes@example.com", `guess ${i}`)).toBe(401);
    expect(await signInFrom(t.url, "127.0.0.5", "wes@example.com", "guess 5")).toBe(429);
    expect(await signInFrom(second.url, "127.0.0.5", "wes@example.com", "guess 5")).toBe(429);
  });

  it("stops a client that tries many addresses", async () => {
    for (let i = 0; i < 30; i++) expect(await signInFrom(t.url, "127.0.0.6", `person${i}@example.com`, "password")).toBe(401);
    expect(await signInFrom(second.url, "127.0.0.6", "someone.new@example.com", "password")).toBe(429);
    expect(await signInFrom(t.url, "127.0.0.7", "someone.new@example.com", "password")).toBe(401);
  });

  it("forgets failures when the window is over", async () => {
    clock.advance(15 * 60 * 1000 + 1);
    expect(await signInFrom(t.url, "127.0.0.2", "vic@example.com", "vic's password")).toBe(200);
    expect(await signInFrom(t.url, "127.0.0.6", "someone.new@example.com", "password")).toBe(401);
    const left = await t.server.services.database.db.selectFrom("sign_in_failures").selectAll().execute();
    expect(left.every((r) => r.window_started_at > "2026-06-01T12:15")).toBe(true);
  });
});
