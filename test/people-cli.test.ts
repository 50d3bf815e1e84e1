import { readFileSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, serve, type ServeProcess } from "./helpers/cli.js";
import { createTestDatabase, type TestDatabase } from "./helpers/databases.js";
import { request } from "./helpers/server.js";

describe("first start and `steward user create`", () => {
  let database: TestDatabase;
  let server: ServeProcess;
  beforeAll(async () => {
    database = await createTestDatabase("sqlite");
    server = await serve({ DATABASE_URL: database.url });
  });
  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await database?.drop();
  });

  it("writes the first key and setup link into a file only its user may read, named on stderr, and into no log", async () => {
    // Standard error is a pipe here, as under a process manager: it is a log, not a person.
    const path = /wrote the first API key and a one-time setup link of organization 'default' to\s+(\S+)/.exec(server.stderr())?.[1];
    expect(path, server.output()).toBeDefined();
    expect(statSync(path!).mode & 0o777).toBe(0o600);
    const text = readFileSync(path!, "utf8");
    expect(text).toContain("Steward created organization 'default'");
    const token = /\/setup\?token=([A-Za-z0-9_-]+)/.exec(text)![1];
    const key = /stw_[A-Za-z0-9_-]{43}/.exec(text)![0];
    // Standard output holds log lines only, each one JSON; neither stream holds a secret.
    const logLines = server.stdout().split("\n").filter((l) => l.trim() !== "");
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) expect(() => JSON.parse(line), line).not.toThrow();
    for (const secret of [token, key]) expect(server.output()).not.toContain(secret);

    expect((await request(server.url, "GET", `/auth/invitation?token=${token}`)).body).toMatchObject({ organizationName: "default", email: null, role: "owner" });
    const done = await request(server.url, "POST", "/auth/invitation", { token, email: "first@example.com", password: "first owner pw" });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ user: { email: "first@example.com" }, role: "owner" });
    // The request log shows where the token was used, never the token.
    await new Promise((r) => setTimeout(r, 100));
    expect(server.stdout()).not.toContain(token);
    expect(server.stdout()).toContain("/auth/invitation?token=[redacted]");
    // The web app is served at / and at the pages location-html headers name.
    for (const path of ["/", "/dataproducts/orders", "/access/123", "/settings/api-keys", "/invitation"]) {
      const page = await request(server.url, "GET", path);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    }
  });

  it("invites people, or creates them with a password from stdin, and never lowers an owner", async () => {
    const session = await request(server.url, "POST", "/auth/sign-in", { email: "first@example.com", password: "first owner pw" });
    const organizationId = session.body.currentOrganizationId as string;
    const env = { DATABASE_URL: database.url };

    const invited = await runCli(["user", "create", "--org", organizationId, "--email", "Member@Example.com", "--json"], env);
    expect(invited.code, invited.stderr).toBe(0);
    const created = JSON.parse(invited.stdout);
    expect(created).toMatchObject({ email: "member@example.com", organizationId, role: "member", status: "invited", invitationUrl: expect.stringMatching(/\/invitation\?token=/) });

    const withPassword = await runCli(["user", "create", "--org", organizationId, "--email", "ops@example.com", "--owner", "--password-stdin"], env, "ops password\n");
    expect(withPassword.code, withPassword.stderr).toBe(0);
    expect(withPassword.stdout).toContain("ops@example.com is an owner");
    const signedIn = await request(server.url, "POST", "/auth/sign-in", { email: "ops@example.com", password: "ops password" });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.role).toBe("owner");

    // The operator may set a new password; the account's sessions end with the old one.
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0];
    const reset = await runCli(["user", "create", "--org", organizationId, "--email", "ops@example.com", "--owner", "--password-stdin"], env, "new ops password\n");
    expect(reset.code, reset.stderr).toBe(0);
    expect((await request(server.url, "GET", "/auth/session", undefined, { headers: { cookie } })).status).toBe(401);
    expect((await request(server.url, "POST", "/auth/sign-in", { email: "ops@example.com", password: "new ops password" })).status).toBe(200);

    const demote = await runCli(["user", "create", "--org", organizationId, "--email", "ops@example.com"], env);
    expect(demote.code).toBe(1);
    expect(demote.stderr).toMatch(/is an owner/);

    const noOrg = await runCli(["user", "create", "--org", "nope", "--email", "x@example.com"], env);
    expect(noOrg.code).toBe(1);
    const badEmail = await runCli(["user", "create", "--org", organizationId, "--email", "not-an-address"], env);
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toMatch(/email/);
  }, 180_000);
});

describe("a malformed DATABASE_URL", () => {
  it("is reported without its password", async () => {
    const urls = [
      "postgres://steward:Sup3r-s3cret@db.internal:notaport/steward",
      "mysql://steward:Sup3r-s3cret@db.internal/steward",
      "postgres://steward:Sup3r@s3cret@db.internal:x/steward",
      "mysql://db.internal/steward?password=Sup3r-s3cret",
      // Typos that keep the text from being read as a URL at all.
      "postgres:/steward:Sup3r-s3cret@db.internal/steward",
      "postgres//steward:Sup3r-s3cret@db.internal/steward",
      " postgres://steward:Sup3r-s3cret@db.internal/steward",
      "steward:Sup3r-s3cret@db.internal/steward",
    ];
    const runs = [...urls.map((url) => ["migrate", url]), ["serve", urls[0]]];
    const results = await Promise.all(runs.map(([command, url]) => runCli([command], { DATABASE_URL: url, PORT: "0" })));
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/DATABASE_URL/);
      expect(result.stderr).toContain("[redacted]");
      expect(result.stdout + result.stderr).not.toContain("s3cret");
    }
  }, 120_000);
});
