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

  it("prints a one-time setup link on first start that makes the first owner of default", async () => {
    const match = /\/setup\?token=([A-Za-z0-9_-]+)/.exec(server.output());
    expect(match, server.output()).not.toBeNull();
    const token = match![1];
    expect((await request(server.url, "GET", `/auth/setup?token=${token}`)).body).toMatchObject({ organizationName: "default", email: null, role: "owner" });
    const done = await request(server.url, "POST", "/auth/setup", { token, email: "first@example.com", password: "first owner pw" });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ user: { email: "first@example.com" }, role: "owner" });
    // The request log shows where the token was used, never the token: the first-start message is its only mention.
    await new Promise((r) => setTimeout(r, 100));
    expect(server.output().split(token).length - 1).toBe(1);
    expect(server.output()).toContain("/auth/setup?token=[redacted]");
    // The web app is served at / and at the pages location-html headers name.
    for (const path of ["/", "/dataproducts/orders", "/access/123", "/settings/api-keys"]) {
      const page = await request(server.url, "GET", path);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    }
  });

  it("creates people with a setup link, or with a password from stdin", async () => {
    const session = await request(server.url, "POST", "/auth/sign-in", { email: "first@example.com", password: "first owner pw" });
    const organizationId = session.body.currentOrganizationId as string;

    const invited = await runCli(["user", "create", "--org", organizationId, "--email", "Member@Example.com", "--json"], { DATABASE_URL: database.url });
    expect(invited.code, invited.stderr).toBe(0);
    const created = JSON.parse(invited.stdout);
    expect(created).toMatchObject({ email: "member@example.com", organizationId, role: "member", setupUrl: expect.stringMatching(/\/setup\?token=/) });

    const withPassword = await runCli(["user", "create", "--org", organizationId, "--email", "ops@example.com", "--owner", "--password-stdin"], {
      DATABASE_URL: database.url,
    }, "ops password\n");
    expect(withPassword.code, withPassword.stderr).toBe(0);
    expect(withPassword.stdout).toContain("ops@example.com is now an owner");
    const signedIn = await request(server.url, "POST", "/auth/sign-in", { email: "ops@example.com", password: "ops password" });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.role).toBe("owner");

    const noOrg = await runCli(["user", "create", "--org", "nope", "--email", "x@example.com"], { DATABASE_URL: database.url });
    expect(noOrg.code).toBe(1);
    const badEmail = await runCli(["user", "create", "--org", organizationId, "--email", "not-an-address"], { DATABASE_URL: database.url });
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toMatch(/email/);
  });
});
