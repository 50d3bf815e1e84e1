import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ID_TOKEN } from "../../src/identity/oidc.js";
import { freePort, launchBrowser, ssoSignIn } from "../e2e/fixtures.js";
import type { DatabaseKind } from "../helpers/databases.js";
import { startTestProvider, type TestProvider } from "../helpers/oidc-provider.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * Single sign-on at the edges of signing out (docs/identity.md, "Signing out"), with real
 * oidc-provider instances on loopback: an ID token too large to keep with the session, a
 * provider without RP-Initiated Logout, one whose end-session address is not one Steward may send
 * a browser to, and one that is down when the person signs out. The person always signs in,
 * their Steward session always ends, and nothing answers 500.
 */

const SSO = { groupsClaim: "groups", scopes: "openid email profile groups", name: "Test IdP" };

/** A Steward whose single sign-on goes to a provider of its own. */
async function stewardWith(kind: DatabaseKind, rpInitiatedLogout: boolean): Promise<{ t: TestServer; idp: TestProvider }> {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const idp = await startTestProvider({
    redirectUri: `${appUrl}/auth/oidc/callback`,
    ...(rpInitiatedLogout ? { postLogoutRedirectUri: `${appUrl}/sign-in` } : { rpInitiatedLogout: false }),
  });
  const t = await startTestServer(kind, { port, appUrl, oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, ...SSO } });
  await t.api("PUT", "/api/settings/scim-mapping", { scimGroupMappings: [{ scimGroup: "admins", type: "organizationOwner" }] });
  return { t, idp };
}

describe.each<DatabaseKind>(["sqlite", "postgres"])("signing out of single sign-on at the edges (%s)", { timeout: 120_000 }, (kind) => {
  let browser: Browser;
  /** Its provider has RP-Initiated Logout. */
  let full: { t: TestServer; idp: TestProvider };
  /** Its provider has none: no end_session_endpoint in its discovery document. */
  let bare: { t: TestServer; idp: TestProvider };
  const contexts: BrowserContext[] = [];

  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    return page;
  };
  const sessionStatus = async (page: Page, t: TestServer) => (await page.request.get(`${t.url}/auth/session`)).status();
  /** POST /auth/sign-out from the signed-in browser, with its CSRF token. */
  const signOut = async (page: Page, t: TestServer) => {
    const csrf = ((await (await page.request.get(`${t.url}/auth/session`)).json()) as { csrfToken: string }).csrfToken;
    return page.request.post(`${t.url}/auth/sign-out`, { headers: { "x-csrf-token": csrf } });
  };

  beforeAll(async () => {
    [browser, full, bare] = await Promise.all([launchBrowser(), stewardWith(kind, true), stewardWith(kind, false)]);
    // Enough groups of the longest length read (256) that the ID token holding them is well over 16 KiB.
    const many = Array.from({ length: 80 }, (_, i) => `group-${String(i).padStart(3, "0")}-${"x".repeat(240)}`);
    full.idp.people.set("big", { email: "big@example.com", groups: [...many, "admins"] });
    full.idp.people.set("ada", { email: "ada@example.com", groups: ["admins"] });
    bare.idp.people.set("ada", { email: "ada@example.com", groups: ["admins"] });
  }, 180_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    for (const s of [full, bare]) {
      await s?.t.close();
      await s?.idp.close();
    }
  });

  it("an ID token larger than a session keeps: the sign-in works, and signing out asks the provider without id_token_hint, which signs the person out", async () => {
    const { t, idp } = full;
    const page = await newPage();
    await ssoSignIn(page, t.url, "big");
    expect(idp.lastIdToken()!.length).toBeGreaterThan(MAX_ID_TOKEN);
    expect(await sessionStatus(page, t)).toBe(200);
    // The groups of the large token were read: "admins" made the person an owner.
    expect((await t.api("GET", "/api/organization/members/big@example.com")).body.role).toBe("Owner");

    const ended = await signOut(page, t);
    expect(ended.status()).toBe(200);
    const url = new URL(((await ended.json()) as { providerSignOutUrl: string }).providerSignOutUrl);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.has("id_token_hint")).toBe(false);
    expect(url.searchParams.get("client_id")).toBe(idp.clientId);
    expect(url.searchParams.get("post_logout_redirect_uri")).toBe(`${t.url}/sign-in`);
    expect(await sessionStatus(page, t)).toBe(401);

    // The real provider takes the client_id in place of the hint, asks, and sends the browser back.
    await page.goto(url.href);
    await page.getByRole("button", { name: /yes, sign me out/i }).click();
    await page.waitForURL((u) => u.origin === t.url && u.pathname === "/sign-in");
    // Its own session ended too: signing in again asks for the login.
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    await page.locator("input[name=login]").waitFor();
  });

  it("a provider without an end_session_endpoint: sign-out answers 204 and the session has ended", async () => {
    const { t } = bare;
    const page = await newPage();
    await ssoSignIn(page, t.url, "ada");
    expect(await sessionStatus(page, t)).toBe(200);
    const ended = await signOut(page, t);
    expect(ended.status()).toBe(204);
    expect(await sessionStatus(page, t)).toBe(401);
  });

  it("signing out in the web app with that provider goes back to the sign-in page", async () => {
    const { t } = bare;
    const page = await newPage();
    await ssoSignIn(page, t.url, "ada");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((u) => u.origin === t.url && u.pathname === "/sign-in");
    expect(await sessionStatus(page, t)).toBe(401);
  });

  it.each([
    ["is no address", "not an address"],
    ["is not http(s)", "javascript:alert(document.cookie)"],
    ["is not text", 42],
  ])("an end_session_endpoint that %s is not sent to the browser: 204, and the session has ended", async (_name, endpoint) => {
    const { t, idp } = full;
    const page = await newPage();
    await ssoSignIn(page, t.url, "ada");
    idp.misbehave({ kind: "end-session", endpoint });
    try {
      const ended = await signOut(page, t);
      expect(ended.status()).toBe(204);
      expect(await ended.text()).toBe("");
      expect(await sessionStatus(page, t)).toBe(401);
    } finally {
      idp.misbehave({ kind: "none" });
    }
  });

  it("a provider that is down when the person signs out: 204, and the session has ended", async () => {
    const { t, idp } = full;
    const page = await newPage();
    await ssoSignIn(page, t.url, "ada");
    idp.misbehave({ kind: "down" });
    try {
      const ended = await signOut(page, t);
      expect(ended.status()).toBe(204);
      expect(await sessionStatus(page, t)).toBe(401);
    } finally {
      idp.misbehave({ kind: "none" });
    }
  });
});
