import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, launchBrowser, ssoSignIn as signInAt } from "../e2e/fixtures.js";
import type { DatabaseKind } from "../helpers/databases.js";
import { startTestProvider, type TestProvider } from "../helpers/oidc-provider.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/**
 * Signing out of a single sign-on session (docs/identity.md, "Signing out"): the Steward session
 * ends first, then the browser goes to the provider's end_session_endpoint with id_token_hint and
 * post_logout_redirect_uri, and the provider (oidc-provider on loopback) sends it back.
 */

describe.each<DatabaseKind>(["sqlite", "postgres"])("signing out of single sign-on (%s)", { timeout: 90_000 }, (kind) => {
  let t: TestServer;
  let idp: TestProvider;
  let browser: Browser;

  const ssoSignIn = (page: Page, login: string) => signInAt(page, t.url, login);
  const sessionStatus = async (page: Page) => (await page.request.get(`${t.url}/auth/session`)).status();

  beforeAll(async () => {
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    idp = await startTestProvider({ redirectUri: `${appUrl}/auth/oidc/callback`, postLogoutRedirectUri: `${appUrl}/sign-in` });
    [t, browser] = await Promise.all([
      startTestServer(kind, {
        port,
        appUrl,
        oidc: { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, groupsClaim: "groups", scopes: "openid email profile groups", name: "Test IdP" },
      }),
      launchBrowser(),
    ]);
    idp.people.set("ada", { email: "ada@example.com", groups: ["admins"] });
    await t.api("PUT", "/api/settings/scim-mapping", { scimGroupMappings: [{ scimGroup: "admins", type: "organizationOwner" }] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.close();
  });

  it("ends the Steward session, then signs out at the provider with id_token_hint and comes back to the sign-in page", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await ssoSignIn(page, "ada");
    expect(await sessionStatus(page)).toBe(200);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((url) => url.origin === idp.issuer);
    // Ended here before the browser reached the provider.
    expect(await sessionStatus(page)).toBe(401);

    // The provider accepted the hint and the address (it asks to confirm instead of refusing), then sends the browser back.
    await page.getByRole("button", { name: /yes, sign me out/i }).click();
    await page.waitForURL((url) => url.origin === t.url && url.pathname === "/sign-in");
    expect(await sessionStatus(page)).toBe(401);

    // The provider's own session ended too: signing in again asks for the login.
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    await page.locator("input[name=login]").waitFor();
    await context.close();
  });

  it("sends the provider the session's ID token, Steward's client and the sign-in page", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await ssoSignIn(page, "ada");
    const csrf = ((await (await page.request.get(`${t.url}/auth/session`)).json()) as { csrfToken: string }).csrfToken;
    const ended = await page.request.post(`${t.url}/auth/sign-out`, { headers: { "x-csrf-token": csrf } });
    expect(ended.status()).toBe(200);
    const url = new URL(((await ended.json()) as { providerSignOutUrl: string }).providerSignOutUrl);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get("client_id")).toBe(idp.clientId);
    expect(url.searchParams.get("post_logout_redirect_uri")).toBe(`${t.url}/sign-in`);
    const hint = url.searchParams.get("id_token_hint")!;
    expect(JSON.parse(Buffer.from(hint.split(".")[1]!, "base64url").toString("utf8"))).toMatchObject({ iss: idp.issuer, aud: idp.clientId, email: "ada@example.com" });
    expect(await sessionStatus(page)).toBe(401);
    await context.close();
  });
});
