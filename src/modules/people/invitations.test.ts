import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { request } from "../../../test/helpers/server.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

/** A client that keeps its session cookie and CSRF token, like the web app in a browser. */
class Person {
  cookie?: string;
  csrf?: string;
  constructor(private readonly url: string) {}

  async call(method: string, path: string, body?: unknown, options: { csrf?: string | null } = {}) {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf) headers["x-csrf-token"] = csrf;
    const res = await request(this.url, method, path, body, { headers });
    const setCookie = res.headers.get("set-cookie");
    if (setCookie) this.cookie = setCookie.split(";")[0];
    if (typeof res.body?.csrfToken === "string") this.csrf = res.body.csrfToken;
    return res;
  }
}

const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

describe.each(DATABASES)("invitations: an organization never sets a password (%s)", (kind) => {
  let a: { organizationId: string; key: string };
  let b: { organizationId: string; key: string };
  const asA = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => request(t.url, method, path, body, { key: a.key, headers });
  const asB = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => request(t.url, method, path, body, { key: b.key, headers });
  const orgsOf = async (p: Person) => ((await p.call("GET", "/auth/session")).body.organizations as Array<{ id: string }>).map((o) => o.id);

  const t = suiteServer(kind, {
    setup: async (t) => {
      a = await t.createOrganization(`attacker-${kind}`);
      b = await t.createOrganization(`victim-${kind}`);
      await asB("PUT", "/api/teams/b-private", { name: "Only in B" });
    },
  });

  it("does not let another organization take an address that one has invited (B invites first)", async () => {
    const invitedByB = await asB("PUT", "/api/members/bob%40example.com", { role: "owner" });
    expect(invitedByB.body).toMatchObject({ status: "invited", userId: null });
    // The attack: A "adds" the same address and uses the link it gets for itself.
    const invitedByA = await asA("PUT", "/api/members/bob%40example.com", { role: "member" });
    expect(invitedByA.status).toBe(200);
    const attacker = new Person(t.url);
    expect((await attacker.call("POST", "/auth/invitation", { token: tokenOf(invitedByA.body.invitationUrl), password: "attacker password" })).status).toBe(200);
    // The account it made is in A only: B's invitation grants nothing without B's own token.
    expect(await orgsOf(attacker)).toEqual([a.organizationId]);
    expect((await attacker.call("POST", "/auth/switch-organization", { organizationId: b.organizationId })).status).toBe(404);
    expect((await asB("GET", "/api/members")).body).toEqual([expect.objectContaining({ email: "bob@example.com", status: "invited", role: "owner" })]);
    // B's link now needs the session of the account: a stranger with the token and a password gets nothing.
    const stranger = await new Person(t.url).call("POST", "/auth/invitation", { token: tokenOf(invitedByB.body.invitationUrl), password: "any password" });
    expect(stranger.status).toBe(401);
    expect(stranger.body.detail).toContain("Sign in");
  });

  it("does not let an earlier invitation of another organization decide who joins later (A invites first)", async () => {
    const invitedByA = await asA("PUT", "/api/members/carl%40example.com", { role: "member" });
    const invitedByB = await asB("PUT", "/api/members/carl%40example.com", { role: "member" });
    // Carl accepts B's invitation and chooses his password; A's link cannot reset it or reach B.
    const carl = new Person(t.url);
    expect((await carl.call("POST", "/auth/invitation", { token: tokenOf(invitedByB.body.invitationUrl), password: "carl's password" })).status).toBe(200);
    const attacker = new Person(t.url);
    const taken = await attacker.call("POST", "/auth/invitation", { token: tokenOf(invitedByA.body.invitationUrl), password: "attacker password" });
    expect(taken.status).toBe(401);
    expect(attacker.cookie).toBeUndefined();
    expect((await request(t.url, "POST", "/auth/sign-in", { email: "carl@example.com", password: "attacker password" })).status).toBe(401);
    expect((await request(t.url, "POST", "/auth/sign-in", { email: "carl@example.com", password: "carl's password" })).status).toBe(200);
  });

  it("lets the first-start link make only a new account, and only the first owner", async () => {
    const fresh = await t.createOrganization(`fresh-${kind}`);
    const setup = tokenOf(await t.server.services.people.invitations.createSetupLink(t.server.services.database.db, fresh.organizationId));
    // The variant of the attack: claim an account that exists (carl's, made above).
    const claim = await new Person(t.url).call("POST", "/auth/invitation", { token: setup, email: "carl@example.com", password: "attacker password" });
    expect(claim.status).toBe(409);
    expect((await request(t.url, "POST", "/auth/sign-in", { email: "carl@example.com", password: "carl's password" })).status).toBe(200);
    // An address invited elsewhere but without an account: the link makes a new account, owner of its own organization only.
    await asB("PUT", "/api/members/dora%40example.com", { role: "member" });
    const first = new Person(t.url);
    expect((await first.call("POST", "/auth/invitation", { token: setup, email: "dora@example.com", password: "first owner password" })).status).toBe(200);
    expect(await orgsOf(first)).toEqual([fresh.organizationId]);
    // A second setup link for an organization that has its owner makes nobody.
    const again = tokenOf(await t.server.services.people.invitations.createSetupLink(t.server.services.database.db, fresh.organizationId));
    expect((await new Person(t.url).call("POST", "/auth/invitation", { token: again, email: "eve@example.com", password: "eve's password!" })).status).toBe(409);
  });

  it("lets an existing account accept only with its own session and CSRF token", async () => {
    const invited = await asA("PUT", "/api/members/carl%40example.com", { role: "member" });
    const token = tokenOf(invited.body.invitationUrl);
    expect((await request(t.url, "GET", `/auth/invitation?token=${token}`)).body).toMatchObject({ email: "carl@example.com", accountExists: true, signedInAs: null });

    const bob = new Person(t.url);
    await bob.call("POST", "/auth/sign-in", { email: "bob@example.com", password: "attacker password" });
    const wrongPerson = await bob.call("POST", "/auth/invitation", { token });
    expect(wrongPerson.status).toBe(403);
    expect(wrongPerson.body.detail).toContain("carl@example.com");

    const carl = new Person(t.url);
    await carl.call("POST", "/auth/sign-in", { email: "carl@example.com", password: "carl's password" });
    expect((await carl.call("GET", `/auth/invitation?token=${token}`)).body.signedInAs).toBe("carl@example.com");
    expect((await carl.call("POST", "/auth/invitation", { token }, { csrf: null })).status).toBe(403);
    const accepted = await carl.call("POST", "/auth/invitation", { token });
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get("set-cookie")).toBeNull();
    expect(accepted.body).toMatchObject({ currentOrganizationId: a.organizationId, role: "member" });
    expect((await orgsOf(carl)).sort()).toEqual([a.organizationId, b.organizationId].sort());
    expect((await carl.call("POST", "/auth/invitation", { token })).status).toBe(404);
  });

  it("never lowers an owner who is added again, and says how to do it on purpose", async () => {
    await t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, a.organizationId, "olga@example.com", "owner", "olga's password"));
    const again = await asA("PUT", "/api/members/olga%40example.com", { role: "member" });
    expect(again.status).toBe(409);
    expect(again.headers.get("content-type")).toMatch(/problem\+json/);
    expect(again.body.detail).toContain("If-Match: *");
    expect((await asA("GET", "/api/members")).body.find((m: any) => m.email === "olga@example.com")).toMatchObject({ role: "owner", status: "active" });
    expect((await asA("PUT", "/api/members/olga%40example.com", { role: "owner" }, { "if-none-match": "*" })).status).toBe(412);
    expect((await asA("PUT", "/api/members/nobody%40example.com", { role: "member" }, { "if-match": "*" })).status).toBe(412);
    expect((await asA("PUT", "/api/members/olga%40example.com", { role: "member" }, { "if-match": '"abc"' })).status).toBe(412);
    // Olga is the only owner of A: even on purpose she stays one.
    expect((await asA("PUT", "/api/members/olga%40example.com", { role: "member" }, { "if-match": "*" })).status).toBe(409);
    await t.server.services.database.db.transaction().execute((trx) => t.server.services.people.addMember(trx, a.organizationId, "pia@example.com", "owner", "pia's password!"));
    const lowered = await asA("PUT", "/api/members/olga%40example.com", { role: "member" }, { "if-match": "*" });
    expect(lowered.status).toBe(200);
    expect(lowered.body).toMatchObject({ role: "member", status: "active" });
    // Raising needs no precondition.
    expect((await asA("PUT", "/api/members/olga%40example.com", { role: "owner" })).body.role).toBe("owner");
  });

  it("answers an invitation the same way whether or not the address has an account elsewhere", async () => {
    const existing = await asA("PUT", "/api/members/dora%40example.com", { role: "member" });
    const unknown = await asA("PUT", "/api/members/nobody.yet%40example.com", { role: "member" });
    const shape = (m: any) => ({ ...m, email: undefined, createdAt: undefined, expiresAt: undefined, invitationUrl: typeof m.invitationUrl });
    expect(shape(existing.body)).toEqual(shape(unknown.body));
  });

  it("replaces an invitation sent again, and withdraws one on DELETE", async () => {
    const first = await asA("PUT", "/api/members/finn%40example.com", { role: "member" });
    const second = await asA("PUT", "/api/members/finn%40example.com", { role: "owner" });
    expect(second.body).toMatchObject({ status: "invited", role: "owner" });
    expect((await request(t.url, "GET", `/auth/invitation?token=${tokenOf(first.body.invitationUrl)}`)).status).toBe(404);
    expect((await asA("GET", "/api/members")).body.filter((m: any) => m.email === "finn@example.com")).toHaveLength(1);
    expect((await asA("DELETE", "/api/members/finn%40example.com")).status).toBe(204);
    expect((await request(t.url, "GET", `/auth/invitation?token=${tokenOf(second.body.invitationUrl)}`)).status).toBe(404);
    expect((await asA("DELETE", "/api/members/finn%40example.com")).status).toBe(404);
  });

  it("refuses large bodies on /auth before reading them", async () => {
    for (const path of ["/auth/sign-in", "/auth/invitation"]) {
      const res = await request(t.url, "POST", path, { email: "x@example.com", password: "p".repeat(100_000), token: "t" });
      expect(res.status).toBe(413);
      expect(res.headers.get("content-type")).toMatch(/problem\+json/);
    }
  });
});
