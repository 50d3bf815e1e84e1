import { createServer } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestProvider, type TestProvider } from "../helpers/oidc-provider.js";
import { request, startTestServer, type TestServer } from "../helpers/server.js";
import type { DatabaseKind } from "../helpers/databases.js";
import { launchBrowser } from "./fixtures.js";

/**
 * Signing in through a real OpenID provider (oidc-provider on loopback) in Chromium: the whole
 * browser flow, the group mapping, and every ID token the server must refuse.
 */

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each<DatabaseKind>(["sqlite", "postgres"])("single sign-on with an OpenID provider (%s)", { timeout: 90_000 }, (kind) => {
  let t: TestServer;
  let idp: TestProvider;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  };

  /** Clicks "Sign in with …", signs in at the provider as `login`, consents, and waits to be back at Steward. */
  async function ssoSignIn(page: Page, login: string): Promise<void> {
    await page.goto(`${t.url}/sign-in`);
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    await page.locator("input[name=login]").fill(login);
    await page.locator("input[name=password]").fill("any password");
    await page.getByRole("button", { name: "Sign-in" }).click();
    const consent = page.getByRole("button", { name: "Continue" });
    await page.waitForURL((url) => url.origin === t.url || url.pathname.startsWith("/interaction/"));
    if (new URL(page.url()).origin !== t.url) {
      await consent.click();
    }
    await page.waitForURL((url) => url.origin === t.url && !url.pathname.startsWith("/auth/"));
  }

  const sessionOf = async (page: Page) => {
    const res = await page.request.get(`${t.url}/auth/session`);
    return { status: res.status(), body: res.status() === 200 ? await res.json() : undefined };
  };

  const expectRefused = async (page: Page, text: RegExp, check?: string) => {
    await page.locator("#sso-error").waitFor();
    expect(page.url()).toContain("/sign-in?ssoError=");
    // Which check refused it: the test proves the right one did.
    if (check) expect(new URL(page.url()).searchParams.get("ssoCheck")).toBe(check);
    expect(await page.locator("#sso-error").textContent()).toMatch(text);
    expect((await sessionOf(page)).status).toBe(401);
  };

  beforeAll(async () => {
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    idp = await startTestProvider({ redirectUri: `${appUrl}/auth/oidc/callback` });
    [t, browser] = await Promise.all([
      startTestServer(kind, {
        port,
        appUrl,
        oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, groupsClaim: "groups", scopes: "openid email profile groups", name: "Test IdP" },
      }),
      launchBrowser(),
    ]);
    idp.people.set("ada", { email: "Ada@Example.com", groups: ["steward-admins", "data-team"] });
    idp.people.set("bob", { email: "bob@example.com", groups: ["data-team"] });
    idp.people.set("eve", { email: "eve@example.com", emailVerified: false });
    idp.people.set("cy", { email: "cy@example.com" });
    const mapping = await t.api("PUT", "/api/settings/scim-mapping", {
      scimGroupMappings: [
        { scimGroup: "steward-admins", type: "organizationOwner" },
        { scimGroup: "data-team", type: "teamMemberRole", teamId: "data", teamMemberRole: "member" },
      ],
    });
    expect(mapping.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await t?.close();
    await idp?.close();
  });

  it("signs in through the provider, creates the account by its verified address and applies the group mapping", async () => {
    const page = await newPage();
    await ssoSignIn(page, "ada");
    const session = await sessionOf(page);
    expect(session.status).toBe(200);
    expect(session.body.user.email).toBe("ada@example.com");
    expect(session.body.currentOrganizationId).toBe(t.organizationId);
    expect(session.body.role).toBe("owner");
    // The cookie works on the API, and the state cookie is gone.
    expect((await page.request.get(`${t.url}/api/members`)).status()).toBe(200);
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain("steward_sso_state");

    const bob = await newPage();
    await ssoSignIn(bob, "bob");
    expect((await sessionOf(bob)).body.role).toBe("member");

    // Someone in no mapped group has an account but no organization.
    const cy = await newPage();
    await ssoSignIn(cy, "cy");
    const cySession = await sessionOf(cy);
    expect(cySession.body.user.email).toBe("cy@example.com");
    expect(cySession.body.organizations).toEqual([]);

    // Signing out ends the session here, and names the provider's sign-out address for the browser.
    const signOut = await page.request.post(`${t.url}/auth/sign-out`, { headers: { "x-csrf-token": session.body.csrfToken, origin: t.url } });
    expect(signOut.status()).toBe(200);
    expect(new URL((await signOut.json()).providerSignOutUrl).searchParams.get("id_token_hint")).toBeTruthy();
    expect((await sessionOf(page)).status).toBe(401);
  });

  it("lists a person in the teams their groups map to, with the role's permissions, and drops them when the group is gone; a hand-added member stays", async () => {
    await t.api("PUT", "/api/teams/data", { name: "Data", members: [{ emailAddress: "dee@example.com", role: "owner" }] });
    const members = async () => ((await t.api("GET", "/api/teams/data")).body.members as Array<Record<string, unknown>>).map(({ emailAddress, role, provisionedBy }) => ({ emailAddress, role, provisionedBy }));
    idp.people.set("finn", { email: "finn@example.com", groups: ["data-team"] });
    const page = await newPage();
    await ssoSignIn(page, "finn");
    const session = await sessionOf(page);
    expect(session.body.role).toBe("member");
    expect(await members()).toEqual([
      { emailAddress: "dee@example.com", role: "owner", provisionedBy: undefined },
      { emailAddress: "finn@example.com", role: "member", provisionedBy: "group-mapping" },
    ]);
    const events = ((await t.api("GET", "/api/events")).body as Array<{ type: string; subject: string }>).filter((e) => e.subject === "data").map((e) => e.type.split(".").pop());
    expect(events).toEqual(["TeamCreatedEvent", "TeamUpdatedEvent"]);
    // The team role's permissions: Finn may add a data product of the team.
    const headers = { "x-csrf-token": session.body.csrfToken, origin: t.url };
    const put = (title: string) => page.request.put(`${t.url}/api/dataproducts/finns-product`, { headers, data: { info: { title, owner: "data" } } });
    expect((await put("Finn's")).status()).toBeLessThan(300);

    // Out of the group at the provider: the next sign-in takes him out of the team, and Dee stays.
    idp.people.set("finn", { email: "finn@example.com", groups: [] });
    const again = await newPage();
    await ssoSignIn(again, "finn");
    expect(await members()).toEqual([{ emailAddress: "dee@example.com", role: "owner", provisionedBy: undefined }]);
    const later = await sessionOf(again);
    const refused = await again.request.put(`${t.url}/api/dataproducts/finns-product`, { headers: { "x-csrf-token": later.body.csrfToken, origin: t.url }, data: { info: { title: "Finn's again", owner: "data" } } });
    expect(refused.status()).toBe(403);
  });

  it("refuses an address the provider has not verified", async () => {
    const page = await newPage();
    await ssoSignIn(page, "eve").catch(() => {});
    await expectRefused(page, /verified e-mail/);
  });

  it("refuses a tampered ID token (its signature no longer matches)", async () => {
    idp.misbehave({ kind: "tamper" });
    try {
      const page = await newPage();
      await ssoSignIn(page, "bob").catch(() => {});
      await expectRefused(page, /answer was refused/, "OAUTH_INVALID_RESPONSE");
    } finally {
      idp.misbehave({ kind: "none" });
    }
  });

  it("refuses an ID token for another audience, signed by the provider's own key", async () => {
    idp.misbehave({ kind: "resign", claims: { aud: "someone-else" } });
    try {
      const page = await newPage();
      await ssoSignIn(page, "bob").catch(() => {});
      await expectRefused(page, /answer was refused/, "OAUTH_JWT_CLAIM_COMPARISON_FAILED");
    } finally {
      idp.misbehave({ kind: "none" });
    }
  });

  it("refuses an expired ID token, signed by the provider's own key", async () => {
    const now = Math.floor(Date.now() / 1000);
    idp.misbehave({ kind: "resign", claims: { iat: now - 7200, exp: now - 3600 } });
    try {
      const page = await newPage();
      await ssoSignIn(page, "bob").catch(() => {});
      await expectRefused(page, /answer was refused/, "OAUTH_JWT_TIMESTAMP_CHECK_FAILED");
    } finally {
      idp.misbehave({ kind: "none" });
    }
  });

  it("refuses a replayed state, and a state that did not start in this browser", async () => {
    const page = await newPage();
    let callback: string | undefined;
    page.on("request", (r) => {
      if (r.url().includes("/auth/oidc/callback")) callback = r.url();
    });
    let state: string | undefined;
    page.on("response", async (r) => {
      const cookie = (await r.allHeaders())["set-cookie"];
      const match = cookie && /steward_sso_state=([^;]+)/.exec(cookie);
      if (match && match[1] !== "") state = decodeURIComponent(match[1]);
    });
    await ssoSignIn(page, "bob");
    expect(callback).toBeDefined();
    expect(state).toBeDefined();
    // The same answer again, with the state cookie put back: the state was used once already.
    const replay = await fetch(callback!, { redirect: "manual", headers: { cookie: `steward_sso_state=${encodeURIComponent(state!)}` } });
    expect(replay.status).toBe(302);
    expect(replay.headers.get("location")).toMatch(/^\/sign-in\?ssoError=/);
    expect(replay.headers.getSetCookie().join(";")).not.toContain("steward_session=");
    // Without the browser's state cookie (a code started elsewhere): refused before anything else.
    const foreign = await fetch(callback!, { redirect: "manual" });
    expect(foreign.headers.get("location")).toMatch(/^\/sign-in\?ssoError=/);
  });

  it("follows the provider's key rotation at once", async () => {
    const page = await newPage();
    await ssoSignIn(page, "bob");
    const before = idp.jwksRequests();
    await idp.rotateKeys();
    const after = await newPage();
    await ssoSignIn(after, "bob");
    expect((await sessionOf(after)).status).toBe(200);
    expect(idp.jwksRequests()).toBeGreaterThan(before);
  });

  it("refuses keys the discovery document places at another private address", async () => {
    idp.misbehave({ kind: "private-jwks" });
    try {
      const page = await newPage();
      await ssoSignIn(page, "bob").catch(() => {});
      await expectRefused(page, /answer was refused/, "refused-destination");
    } finally {
      idp.misbehave({ kind: "none" });
    }
  });

  it("lets an owner turn password sign-in off only once an owner signed in with SSO, and then ends password sessions", async () => {
    const org = await t.createOrganization(`passwords-${kind}`);
    const api = (method: string, path: string, body?: unknown) => request(t.url, method, path, body, { key: org.key });
    await t.server.services.people.addMember(t.server.services.database.db, org.organizationId, "pat@example.com", "owner", "pat's password 123");
    const refused = await api("PUT", "/api/settings/sign-in", { passwordSignIn: false });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/at least one owner/);

    // Pat signs in with a password, then through the provider (same verified address: same account).
    const signIn = await request(t.url, "POST", "/auth/sign-in", { email: "pat@example.com", password: "pat's password 123", organizationId: org.organizationId });
    expect(signIn.status).toBe(200);
    const passwordCookie = /steward_session=[^;]+/.exec(signIn.headers.get("set-cookie")!)![0];
    idp.people.set("pat", { email: "pat@example.com" });
    const page = await newPage();
    await ssoSignIn(page, "pat");
    expect((await sessionOf(page)).body.organizations.map((o: { id: string }) => o.id)).toContain(org.organizationId);

    const off = await api("PUT", "/api/settings/sign-in", { passwordSignIn: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ passwordSignIn: false, ssoConfigured: true, ownersSignedInWithSso: 1 });
    // The password session stops working at once; signing in with the password is refused.
    expect((await request(t.url, "GET", "/api/members", undefined, { headers: { cookie: passwordCookie } })).status).toBe(401);
    const again = await request(t.url, "POST", "/auth/sign-in", { email: "pat@example.com", password: "pat's password 123" });
    expect(again.status).toBe(403);
    // The single sign-on session goes on.
    await page.request.post(`${t.url}/auth/switch-organization`, { data: { organizationId: org.organizationId }, headers: { "x-csrf-token": (await sessionOf(page)).body.csrfToken } });
    expect((await page.request.get(`${t.url}/api/members`)).status()).toBe(200);
  });
});
