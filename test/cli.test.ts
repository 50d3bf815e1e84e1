import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, serve } from "./helpers/cli.js";
import { createTestDatabase, DATABASES, type TestDatabase } from "./helpers/databases.js";
import { request } from "./helpers/server.js";

describe.each(DATABASES)("the steward command (%s)", (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(() => database?.drop());

  it("migrates, then reports the database up to date", async () => {
    const first = await runCli(["migrate", "--json"], { DATABASE_URL: database.url });
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ applied: expect.arrayContaining(["0001_foundation"]) });
    const again = await runCli(["migrate"], { DATABASE_URL: database.url });
    expect(again.stdout).toMatch(/up to date/);
  });

  // Seven processes, each compiling the CLI from source: more than the default 30 s on two busy cores.
  it("creates organizations and keys, printing JSON with --json", async () => {
    const org = await runCli(["org", "create", "--name", "acme", "--json", "--database-url", database.url]);
    expect(org.code, org.stderr).toBe(0);
    const created = JSON.parse(org.stdout);
    expect(created).toEqual({ organizationId: expect.any(String), apiKey: expect.stringMatching(/^stw_/) });

    const dup = await runCli(["org", "create", "--name", "acme"], { DATABASE_URL: database.url });
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);

    const key = await runCli(["key", "create", "--org", created.organizationId, "--name", "deploy bot", "--json"], { DATABASE_URL: database.url });
    expect(key.code, key.stderr).toBe(0);
    expect(JSON.parse(key.stdout)).toEqual({ id: expect.any(String), apiKey: expect.stringMatching(/^stw_/), scope: "organization", teamId: null, userId: null });

    const noTeam = await runCli(["key", "create", "--org", created.organizationId, "--team", "ghosts"], { DATABASE_URL: database.url });
    expect(noTeam.code).toBe(1);
    expect(noTeam.stderr).toMatch(/teamId: no team 'ghosts'/);

    const noOrg = await runCli(["key", "create", "--org", "nope"], { DATABASE_URL: database.url });
    expect(noOrg.code).toBe(1);
    expect(noOrg.stderr).toMatch(/No organization/);

    // The printed keys work against a server on the same database; a team key once the team exists.
    const server = await serve({ DATABASE_URL: database.url, STEWARD_BOOTSTRAP: "false" });
    try {
      const orgKey = JSON.parse(key.stdout).apiKey;
      expect((await request(server.url, "PUT", "/api/teams/ops", { name: "Ops" }, { key: orgKey })).status).toBe(200);
      const teamKey = await runCli(["key", "create", "--org", created.organizationId, "--team", "ops", "--json"], { DATABASE_URL: database.url });
      const parsed = JSON.parse(teamKey.stdout);
      expect(parsed).toMatchObject({ scope: "team", teamId: "ops" });
      expect((await request(server.url, "PUT", "/api/teams/ops", { name: "Ops!" }, { key: parsed.apiKey })).status).toBe(200);
      expect((await request(server.url, "GET", "/api/api-keys", undefined, { key: parsed.apiKey })).status).toBe(403);
      // No bootstrap on a database that has organizations, nor when turned off.
      expect(server.output()).not.toMatch(/stw_/);
    } finally {
      server.child.kill("SIGTERM");
      await server.exited;
    }
  }, 120_000);

  it("creates keys of every scope with --scope, a person's with --user", async () => {
    const org = JSON.parse((await runCli(["org", "create", "--name", "scoped", "--json"], { DATABASE_URL: database.url })).stdout);
    const connectorKey = await runCli(["key", "create", "--org", org.organizationId, "--scope", "connector", "--json"], { DATABASE_URL: database.url });
    expect(connectorKey.code, connectorKey.stderr).toBe(0);
    expect(JSON.parse(connectorKey.stdout)).toMatchObject({ scope: "connector", teamId: null, userId: null, apiKey: expect.stringMatching(/^stw_/) });
    const badScope = await runCli(["key", "create", "--org", org.organizationId, "--scope", "root"], { DATABASE_URL: database.url });
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toMatch(/--scope must be one of organization, organization_read/);
    const nobody = await runCli(["key", "create", "--org", org.organizationId, "--scope", "user", "--user", "nobody@example.com"], { DATABASE_URL: database.url });
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/userId: names no member/);
  }, 120_000);

  it("rejects a bad configuration with a clear message", async () => {
    const res = await runCli(["migrate"], { DATABASE_URL: "mysql://nope" });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/DATABASE_URL must start with sqlite: or postgres:\/\//);
  });
});

describe.each(DATABASES)("steward serve (%s)", (kind) => {
  it("bootstraps organization 'default' once, serves health, and stops cleanly on SIGTERM", async () => {
    const database = await createTestDatabase(kind);
    try {
      const first = await serve({ DATABASE_URL: database.url });
      const key = /(stw_[A-Za-z0-9_-]{43})/.exec(first.firstStart())?.[1];
      expect(key, first.output()).toBeDefined();
      expect(first.firstStart()).toMatch(/x-api-key/);
      expect((await request(first.url, "GET", "/health/live")).status).toBe(200);
      expect((await request(first.url, "GET", "/health/ready")).status).toBe(200);
      expect((await request(first.url, "PUT", "/api/teams/t", { name: "T" }, { key })).status).toBe(200);

      // A long poll held at shutdown is answered with [] and the process exits 0.
      const held = request(first.url, "GET", "/api/events?longPolling=true&lastEventId=" + (await request(first.url, "GET", "/api/events", undefined, { key })).body[0].id, undefined, { key });
      await new Promise((r) => setTimeout(r, 300));
      first.child.kill("SIGTERM");
      const answer = await held;
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([]);
      expect(await first.exited).toBe(0);

      // PostgreSQL here trusts local connections, so a password in the URL is accepted and unused:
      // it must still appear nowhere in what Steward prints.
      const withPassword = database.url.replace("postgres://postgres@", "postgres://postgres:hunter2-secret@");
      const second = await serve({ DATABASE_URL: withPassword });
      try {
        expect(second.output()).not.toMatch(/stw_/);
        expect((await request(second.url, "GET", "/api/teams/t", undefined, { key })).status).toBe(200);
        // A plain line for people, then one JSON line per request, written when it completes.
        expect(second.output()).toMatch(new RegExp(`Steward listening on ${second.url} .*database: (SQLite|PostgreSQL) `));
        await expect.poll(() => second.output().split("\n").filter((l) => l.includes('"url":"/api/teams/t"')).length).toBe(1);
        const line = JSON.parse(second.output().split("\n").find((l) => l.includes('"url":"/api/teams/t"'))!);
        expect(line).toMatchObject({ level: 30, status: 200, req: { method: "GET" } });
        expect(second.output()).not.toContain("hunter2");
      } finally {
        second.child.kill("SIGTERM");
        expect(await second.exited).toBe(0);
      }
    } finally {
      await database.drop();
    }
  }, 120_000);

  it("keeps serving, and stops cleanly, when the reader of its log has gone", async () => {
    const database = await createTestDatabase(kind);
    try {
      const server = await serve({ DATABASE_URL: database.url, STEWARD_BOOTSTRAP: "false" });
      // Closing the pipe's only reader makes every later write to the server's stdout fail (EPIPE).
      server.child.stdout.destroy();
      for (let i = 0; i < 20; i++) expect((await request(server.url, "GET", "/health/ready")).status).toBe(200);
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    } finally {
      await database.drop();
    }
  }, 120_000);
});

describe("a DATABASE_URL whose port cannot be used", () => {
  it("stops serve, migrate and org create with a configuration error, not silently with 0", async () => {
    const runs: Array<[string[], string]> = [
      [["serve"], "postgres://steward:hunter2@127.0.0.1/steward?port=x"],
      [["migrate"], "postgres://steward:hunter2@127.0.0.1/steward?port=x"],
      [["org", "create", "--name", "z", "--json"], "postgres://127.0.0.1/steward?port=-1"],
    ];
    const results = await Promise.all(runs.map(([args, url]) => runCli(args, { DATABASE_URL: url, PORT: "0" })));
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/configuration error: DATABASE_URL's port .* got "(x|-1)"/);
      expect(result.stdout + result.stderr).not.toContain("hunter2");
    }
  }, 120_000);
});
