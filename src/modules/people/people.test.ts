import { describe, expect, it } from "vitest";
import { ManualClock } from "../../platform/clock.js";
import { DATABASES } from "../../../test/helpers/databases.js";
import { request } from "../../../test/helpers/server.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

/** A browser-like client: keeps the session cookie and sends the CSRF token when asked to. */
class Browser {
  cookie?: string;
  csrf?: string;
  constructor(private readonly url: string) {}

  async call(method: string, path: string, body?: unknown, options: { csrf?: string | null; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie) headers.cookie = this.cookie;
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf) headers["x-csrf-token"] = csrf;
    const res = await request(this.url, method, path, body, { headers });
    const setCookie = res.headers.get("set-cookie");
    if (setCookie) {
      const [pair] = setCookie.split(";");
      this.cookie = pair.endsWith("=") ? undefined : pair;
    }
    if (res.body && typeof res.body === "object" && typeof (res.body as any).csrfToken === "string") this.csrf = (res.body as any).csrfToken;
    return res;
  }

  signIn(email: string, password: string, organizationId?: string) {
    return this.call("POST", "/auth/sign-in", { email, password, organizationId });
  }
}

describe.each(DATABASES)("people, sessions and CSRF (%s)", (kind) => {
  const clock = new ManualClock("2026-06-01T12:00:00.000Z");
  const addMember = (organizationId: string, email: string, role: "owner" | "member", password?: string) =>
    t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, organizationId, email, role, password));

  const t = suiteServer(kind, {
    clock,
    setup: async (t) => {
      await t.api("PUT", "/api/teams/payments", { name: "Payments", members: [{ emailAddress: "Mia@Example.com", role: "lead" }] });
      await t.api("PUT", "/api/teams/search", { name: "Search" });
      await addMember(t.organizationId, "owner@example.com", "owner", "correct horse");
      await addMember(t.organizationId, "mia@example.com", "member", "battery staple");
    },
  });

  it("signs in with a session cookie that is HttpOnly and SameSite=Lax, and stores only a hash of it", async () => {
    const b = new Browser(t.url);
    const res = await b.signIn("Owner@Example.com", "correct horse");
    expect(res.status).toBe(200);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^steward_session=[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).toContain("Path=/");
    expect(setCookie).not.toContain("Secure");
    expect(res.body).toMatchObject({ user: { email: "owner@example.com" }, currentOrganizationId: t.organizationId, role: "owner", scope: "organization" });
    const token = b.cookie!.split("=")[1];
    const dump = JSON.stringify(await t.server.services.database.db.selectFrom("sessions").selectAll().execute());
    expect(dump).not.toContain(token);
    const users = JSON.stringify(await t.server.services.database.db.selectFrom("users").selectAll().execute());
    expect(users).not.toContain("correct horse");
    expect(users).toContain("scrypt$");
  });

  it("marks the cookie Secure when the app is served over https", async () => {
    const res = await request(t.url, "POST", "/auth/sign-in", { email: "owner@example.com", password: "correct horse" }, { headers: { "x-forwarded-proto": "https" } });
    expect(res.headers.get("set-cookie")).toContain("Secure");
  });

  it("answers the same 401 for a wrong password and an unknown address", async () => {
    const wrong = await new Browser(t.url).signIn("owner@example.com", "wrong password");
    const unknown = await new Browser(t.url).signIn("nobody@example.com", "wrong password");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.detail).toBe(unknown.body.detail);
  });

  it("pauses a client that keeps guessing an address", async () => {
    for (let i = 0; i < 5; i++) expect((await new Browser(t.url).signIn("mia@example.com", `nope-${i}`)).status).toBe(401);
    const paused = await new Browser(t.url).signIn("mia@example.com", "battery staple");
    expect(paused.status).toBe(429);
    expect(paused.headers.get("retry-after")).toMatch(/^\d+$/);
    clock.advance(16 * 60 * 1000);
    expect((await new Browser(t.url).signIn("mia@example.com", "battery staple")).status).toBe(200);
  });

  it("uses /api with the cookie: reads need no token, changes need the CSRF token", async () => {
    const b = new Browser(t.url);
    await b.signIn("owner@example.com", "correct horse");
    expect((await b.call("GET", "/api/teams", undefined, { csrf: null })).status).toBe(200);
    const without = await b.call("PUT", "/api/teams/ops", { name: "Ops" }, { csrf: null });
    expect(without.status).toBe(403);
    expect(without.headers.get("content-type")).toMatch(/problem\+json/);
    expect((await b.call("PUT", "/api/teams/ops", { name: "Ops" }, { csrf: "x".repeat(43) })).status).toBe(403);
    expect((await b.call("GET", "/api/teams/ops")).status).toBe(404);
    expect((await b.call("PUT", "/api/teams/ops", { name: "Ops" })).status).toBe(200);
    expect((await b.call("DELETE", "/api/teams/ops")).status).toBe(204);
  });

  it("answers a missing or unknown session with the same 401 as a missing key", async () => {
    const missingKey = await request(t.url, "GET", "/api/teams");
    const badCookie = await request(t.url, "GET", "/api/teams", undefined, { headers: { cookie: "steward_session=forged" } });
    const otherCookie = await request(t.url, "GET", "/api/teams", undefined, { headers: { cookie: "theme=dark" } });
    for (const res of [badCookie, otherCookie]) {
      expect(res.status).toBe(401);
      expect(res.body.detail).toBe(missingKey.body.detail);
    }
  });

  it("derives a member's teams from team documents and applies the team rules", async () => {
    const b = new Browser(t.url);
    const session = await b.signIn("mia@example.com", "battery staple");
    expect(session.body).toMatchObject({ role: "member", scope: "team", teamIds: ["payments"] });
    expect((await b.call("PUT", "/api/teams/payments", { name: "Payments", description: "Money", members: [{ emailAddress: "Mia@Example.com" }] })).status).toBe(200);
    expect((await b.call("PUT", "/api/teams/search", { name: "Taken over" })).status).toBe(403);
    expect((await b.call("GET", "/api/api-keys")).status).toBe(403);
    expect((await b.call("GET", "/api/members")).status).toBe(403);
    // Added to a team's members: acts for it on the very next request.
    await t.api("PUT", "/api/teams/search", { name: "Search", members: [{ emailAddress: "mia@example.com" }] });
    expect((await b.call("PUT", "/api/teams/search", { name: "Search", description: "now hers", members: [{ emailAddress: "mia@example.com" }] })).status).toBe(200);
    expect((await b.call("GET", "/auth/session")).body.teamIds).toEqual(["payments", "search"]);
  });

  it("gives team rights to a member whose address contains LIKE wildcards", async () => {
    await addMember(t.organizationId, "o_brien%1@example.com", "member", "brien's password");
    await t.api("PUT", "/api/teams/wildcards", { name: "Wildcards", members: [{ emailAddress: "O_Brien%1@example.com" }] });
    const b = new Browser(t.url);
    expect((await b.signIn("o_brien%1@example.com", "brien's password")).body).toMatchObject({ scope: "team", teamIds: ["wildcards"] });
    expect((await b.call("PUT", "/api/teams/wildcards", { name: "Wildcards", description: "ours", members: [{ emailAddress: "o_brien%1@example.com" }] })).status).toBe(200);
  });

  it("lets owners manage keys and members through the same API", async () => {
    const b = new Browser(t.url);
    await b.signIn("owner@example.com", "correct horse");
    const key = await b.call("POST", "/api/api-keys", { displayName: "from the web", scope: "team", teamId: "payments" });
    expect(key.status).toBe(201);
    expect((await request(t.url, "GET", "/api/teams", undefined, { key: key.body.key })).status).toBe(200);

    const added = await b.call("PUT", "/api/members/new.person%40example.com", { role: "member" });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ email: "new.person@example.com", role: "member", status: "invited", userId: null });
    expect(added.body.invitationUrl).toMatch(/^http:\/\/steward\.test\/invitation\?token=/);
    const list = await b.call("GET", "/api/members");
    expect(list.body.map((m: any) => [m.email, m.status])).toEqual([
      ["mia@example.com", "active"],
      ["new.person@example.com", "invited"],
      ["o_brien%1@example.com", "active"],
      ["owner@example.com", "active"],
    ]);
    expect(list.text).not.toContain("token=");

    // The invitation makes the account with the password its person chooses, once, and signs them in.
    const token = new URL(added.body.invitationUrl).searchParams.get("token")!;
    expect((await request(t.url, "GET", `/auth/invitation?token=${token}`)).body).toMatchObject({ email: "new.person@example.com", role: "member", accountExists: false });
    const n = new Browser(t.url);
    const setUp = await n.call("POST", "/auth/invitation", { token, password: "a fine password" });
    expect(setUp.status).toBe(200);
    expect(setUp.body.user.email).toBe("new.person@example.com");
    expect((await n.call("GET", "/api/dataproducts")).status).toBe(200);
    expect((await new Browser(t.url).call("POST", "/auth/invitation", { token, password: "another one" })).status).toBe(404);
    expect((await b.call("GET", "/api/members")).body.find((m: any) => m.email === "new.person@example.com")).toMatchObject({ status: "active", userId: setUp.body.user.id });

    // The only owner can be neither demoted nor removed.
    expect((await b.call("PUT", "/api/members/owner%40example.com", { role: "member" })).status).toBe(409);
    expect((await b.call("DELETE", "/api/members/owner%40example.com")).status).toBe(409);
    expect((await b.call("DELETE", "/api/members/new.person%40example.com")).status).toBe(204);
    expect((await n.call("GET", "/api/dataproducts")).status).toBe(401);
    expect((await b.call("DELETE", "/api/members/new.person%40example.com")).status).toBe(404);
    // Organization keys may manage members too.
    expect((await t.api("GET", "/api/members")).status).toBe(200);
  });

  it("switches between the organizations a person belongs to", async () => {
    const other = await t.createOrganization(`test-${kind}`);
    const invited = await request(t.url, "PUT", "/api/members/owner%40example.com", { role: "member" }, { key: other.key });
    await request(t.url, "PUT", "/api/teams/only-in-test", { name: "Only in test" }, { key: other.key });
    const b = new Browser(t.url);
    await b.signIn("owner@example.com", "correct horse", t.organizationId);
    // The account exists: its own session accepts the invitation.
    const token = new URL(invited.body.invitationUrl).searchParams.get("token")!;
    expect((await b.call("POST", "/auth/invitation", { token })).body.currentOrganizationId).toBe(other.organizationId);
    const signedIn = await b.signIn("owner@example.com", "correct horse", t.organizationId);
    expect(signedIn.body.organizations).toHaveLength(2);
    expect((await b.call("GET", "/api/teams/only-in-test")).status).toBe(404);
    expect((await b.call("POST", "/auth/switch-organization", { organizationId: other.organizationId }, { csrf: null })).status).toBe(403);
    const switched = await b.call("POST", "/auth/switch-organization", { organizationId: other.organizationId });
    expect(switched.body).toMatchObject({ currentOrganizationId: other.organizationId, role: "member", scope: "team" });
    expect((await b.call("GET", "/api/teams/only-in-test")).status).toBe(200);
    expect((await b.call("POST", "/auth/switch-organization", { organizationId: "not-mine" })).status).toBe(404);
  });

  it("ends the session on sign-out, and after 12 idle hours", async () => {
    const b = new Browser(t.url);
    await b.signIn("owner@example.com", "correct horse");
    const cookie = b.cookie;
    expect((await b.call("POST", "/auth/sign-out", undefined, { csrf: null })).status).toBe(403);
    const out = await b.call("POST", "/auth/sign-out");
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await request(t.url, "GET", "/api/teams", undefined, { headers: { cookie: cookie! } })).status).toBe(401);

    const idle = new Browser(t.url);
    await idle.signIn("owner@example.com", "correct horse");
    clock.advance(11 * 60 * 60 * 1000);
    expect((await idle.call("GET", "/api/teams")).status).toBe(200);
    clock.advance(11 * 60 * 60 * 1000);
    expect((await idle.call("GET", "/api/teams")).status).toBe(200);
    clock.advance(12 * 60 * 60 * 1000 + 1);
    expect((await idle.call("GET", "/api/teams")).status).toBe(401);
    expect((await idle.call("GET", "/auth/session")).status).toBe(401);
  });

  it("refuses sign-in posted from another site", async () => {
    const res = await request(t.url, "POST", "/auth/sign-in", { email: "owner@example.com", password: "correct horse" }, { headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(403);
  });

  it("lets the first-start link choose the owner's address, once", async () => {
    const org = await t.createOrganization(`fresh-${kind}`);
    const url = await t.server.services.people.invitations.createSetupLink(t.server.services.database.db, org.organizationId);
    const token = new URL(url).searchParams.get("token")!;
    expect((await request(t.url, "GET", `/auth/invitation?token=${token}`)).body).toMatchObject({ email: null, role: "owner", accountExists: false });
    const b = new Browser(t.url);
    expect((await b.call("POST", "/auth/invitation", { token, password: "short" })).status).toBe(422);
    expect((await b.call("POST", "/auth/invitation", { token, password: "long enough" })).status).toBe(422);
    const done = await b.call("POST", "/auth/invitation", { token, email: "First@Example.com", password: "long enough" });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ user: { email: "first@example.com" }, role: "owner", currentOrganizationId: org.organizationId });
    expect((await b.call("POST", "/api/api-keys", { displayName: "mine", scope: "organization" })).status).toBe(201);
    expect((await new Browser(t.url).call("POST", "/auth/invitation", { token, email: "x@example.com", password: "long enough" })).status).toBe(404);
  });

  it("lists members and invitations a page at a time, with a Link to the next page", async () => {
    const org = await t.createOrganization("paged members");
    const asOrg = (method: string, path: string, body?: unknown) => t.api(method, path, body, { key: org.key });
    for (const name of ["e", "a", "d", "c", "b"]) expect((await asOrg("PUT", `/api/members/${name}@example.com`, { role: "member" })).status).toBe(200);

    const first = await asOrg("GET", "/api/members?pageSize=2");
    expect(first.body.map((m: { email: string }) => m.email)).toEqual(["a@example.com", "b@example.com"]);
    expect(first.headers.get("link")).toBe('</api/members?pageSize=2&p=1>; rel="next"');
    const last = await asOrg("GET", "/api/members?pageSize=2&p=2");
    expect(last.body.map((m: { email: string }) => m.email)).toEqual(["e@example.com"]);
    expect(last.headers.get("link")).toBeNull();
    expect((await asOrg("GET", "/api/members")).body).toHaveLength(5);

    for (const query of ["p=-1", "p=abc", "pageSize=0", "pageSize=10001"]) {
      const res = await asOrg("GET", `/api/members?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/problem\+json/);
    }
  });

  it("documents the members API in OpenAPI", async () => {
    const doc = (await request(t.url, "GET", "/api/openapi.json")).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/members", "/api/members/{email}"]));
    expect(doc.components.securitySchemes.session).toMatchObject({ in: "cookie", name: "steward_session" });
  });
});
