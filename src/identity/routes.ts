import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { Config } from "../platform/config.js";
import { missing } from "../platform/errors.js";
import { errors } from "../platform/http/shapes.js";
import { principalOf, type App } from "../platform/http/types.js";
import { readCookie, sessionCookie } from "../modules/people/cookies.js";
import { SESSION_MAX_MS } from "../modules/people/sessions.js";
import type { OidcSignIn } from "./oidc.js";
import { SsoSignInError } from "./oidc.js";
import { GroupMappingSchema } from "./mapping.js";
import type { IdentitySettingsService } from "./settings.js";
import { SignInOptionsSchema, SignInSettingsSchema } from "./shapes.js";

const STATE_COOKIE = "steward_sso_state";

function secure(request: FastifyRequest, config: Config): boolean {
  return config.appUrl.startsWith("https:") || request.protocol === "https" || request.headers["x-forwarded-proto"] === "https";
}

function stateCookie(value: string, maxAgeSeconds: number, isSecure: boolean): string {
  return [`${STATE_COOKIE}=${encodeURIComponent(value)}`, "Path=/auth/oidc", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeSeconds}`, ...(isSecure ? ["Secure"] : [])].join("; ");
}

/** `/auth/oidc/*` and `/auth/sign-in-options`: single sign-on through the operator's OpenID provider (docs/identity.md). */
export function ssoRoutes(app: App, oidc: OidcSignIn | undefined, config: Config): void {
  const tags = ["sign-in"];

  app.get(
    "/auth/sign-in-options",
    { schema: { tags, summary: "How people may sign in: the single sign-on provider, when one is configured", response: { 200: SignInOptionsSchema } } },
    async () => ({ sso: oidc ? { name: oidc.config.name, url: "/auth/oidc/start" } : null }),
  );

  app.get("/auth/oidc/start", { schema: { tags, summary: "Start signing in with the OpenID provider (redirects there)", response: { ...errors(404, 503) } } }, async (request, reply) => {
    if (!oidc) throw missing("Single sign-on is not configured on this server (OIDC_ISSUER).");
    try {
      const { url, state } = await oidc.begin();
      return reply.code(302).header("cache-control", "no-store").header("set-cookie", stateCookie(state, 600, secure(request, config))).header("location", url).send();
    } catch (error) {
      if (!(error instanceof SsoSignInError)) throw error;
      request.log.warn({ reason: error.reason, detail: error.detail }, "single sign-on could not start");
      return reply.code(302).header("location", `/sign-in?ssoError=${encodeURIComponent(error.message)}`).send();
    }
  });

  app.get("/auth/oidc/callback", { schema: { tags, summary: "Where the OpenID provider sends the browser back", hide: true } }, async (request, reply) => {
    if (!oidc) throw missing("Single sign-on is not configured on this server (OIDC_ISSUER).");
    const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?") + 1) : "";
    const isSecure = secure(request, config);
    try {
      const signedIn = await oidc.finish(query, readCookie(request.headers.cookie, STATE_COOKIE));
      return reply
        .code(302)
        .header("cache-control", "no-store")
        .header("set-cookie", [stateCookie("", 0, isSecure), sessionCookie(signedIn.token, { secure: isSecure, maxAgeSeconds: SESSION_MAX_MS / 1000 })])
        .header("location", "/")
        .send();
    } catch (error) {
      if (!(error instanceof SsoSignInError)) throw error;
      request.log.warn({ reason: error.reason, detail: error.detail }, "single sign-on refused");
      return reply
        .code(302)
        .header("cache-control", "no-store")
        .header("set-cookie", stateCookie("", 0, isSecure))
        .header("location", `/sign-in?ssoError=${encodeURIComponent(error.message)}${error.check ? `&ssoCheck=${encodeURIComponent(error.check)}` : ""}`)
        .send();
    }
  });
}

/** `/api/settings/scim-mapping` and `/api/settings/sign-in`: an organization's identity settings (owners and organization keys). */
export function identitySettingsRoutes(app: App, settings: IdentitySettingsService): void {
  const tags = ["organization"];
  app.get(
    "/api/settings/scim-mapping",
    { schema: { tags, summary: "Get SCIM mapping", description: "Which provider groups make a person an organization owner or a team member in a role.", response: { 200: GroupMappingSchema, ...errors(403) } } },
    async (request, reply) => reply.header("cache-control", "no-store").send(await settings.mapping(principalOf(request))),
  );
  app.put(
    "/api/settings/scim-mapping",
    { schema: { tags, summary: "Update SCIM mapping", body: GroupMappingSchema, response: { 200: GroupMappingSchema, ...errors(403, 413, 415, 422) } } },
    async (request, reply) => reply.header("cache-control", "no-store").send(await settings.putMapping(principalOf(request), request.body)),
  );
  app.get(
    "/api/settings/sign-in",
    { schema: { tags, summary: "Whether people of the organization may sign in with a password", response: { 200: SignInSettingsSchema, ...errors(403) } } },
    async (request, reply) => reply.header("cache-control", "no-store").send(await settings.signIn(principalOf(request))),
  );
  app.put(
    "/api/settings/sign-in",
    {
      schema: {
        tags,
        summary: "Turn password sign-in on or off",
        description: "Off only once single sign-on is configured and at least one owner has signed in through it (409 otherwise). Password sessions in the organization end at once.",
        body: Type.Object({ passwordSignIn: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: SignInSettingsSchema, ...errors(403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => reply.header("cache-control", "no-store").send(await settings.putSignIn(principalOf(request), request.body.passwordSignIn)),
  );
}
