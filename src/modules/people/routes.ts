import { Type } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../platform/config.js";
import { forbidden, unauthenticated } from "../../platform/errors.js";
import { errors, NoContent } from "../../platform/http/shapes.js";
import type { App } from "../../platform/http/types.js";
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from "./cookies.js";
import type { Accepted } from "./invitations.js";
import type { PeopleService } from "./service.js";
import { SESSION_MAX_MS, type EndedSession } from "./sessions.js";
import { AcceptInvitationSchema, InvitationQuery, InvitationViewSchema, SessionViewSchema, SignInSchema, SwitchOrganizationSchema } from "./shapes.js";

export { memberRoutes } from "./member-routes.js";

const tags = ["sign-in"];

/** The session token a request carries in its cookie. */
export const sessionToken = (request: FastifyRequest) => readCookie(request.headers.cookie, SESSION_COOKIE);

function secure(request: FastifyRequest, config: Config): boolean {
  return config.appUrl.startsWith("https:") || request.protocol === "https" || request.headers["x-forwarded-proto"] === "https";
}

/** Sign-in and accepting an invitation may come without a session; a browser's Origin must at least be this site. */
function requireSameOrigin(request: FastifyRequest, config: Config): void {
  const origin = request.headers.origin;
  if (origin === undefined || origin === "null") return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw forbidden("The request's Origin is not valid.");
  }
  if (host !== request.headers.host && host !== new URL(config.appUrl).host) throw forbidden("Sign-in is accepted only from Steward's own pages.");
}

function sendSignedIn(reply: FastifyReply, request: FastifyRequest, config: Config, signedIn: Accepted) {
  if (signedIn.token !== undefined) {
    reply.header("set-cookie", sessionCookie(signedIn.token, { secure: secure(request, config), maxAgeSeconds: SESSION_MAX_MS / 1000 }));
  }
  return reply.header("cache-control", "no-store").send(signedIn.view);
}

/** `/auth/*`: how people sign in to the web app and join organizations. The web app then calls `/api` with the session cookie. */
/**
 * Where the browser goes next to sign out at the OpenID provider too, for a session that began
 * there (docs/identity.md, "Signing out"); undefined when there is no such step.
 */
export type ProviderSignOut = (ended: EndedSession) => Promise<string | undefined>;

export function authRoutes(app: App, people: PeopleService, config: Config, providerSignOut?: ProviderSignOut): void {
  const { sessions, invitations } = people;

  app.post(
    "/auth/sign-in",
    {
      schema: {
        tags,
        summary: "Sign in with email and password",
        description:
          "Sets the HttpOnly session cookie `steward_session`. Changes made with it must send the returned csrfToken in `x-csrf-token`. Repeated failures are answered 429 with Retry-After.",
        body: SignInSchema,
        response: { 200: SessionViewSchema, ...errors(403, 413, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      requireSameOrigin(request, config);
      return sendSignedIn(reply, request, config, await sessions.signIn(request.body, request.ip));
    },
  );

  app.post(
    "/auth/sign-out",
    {
      schema: {
        tags,
        summary: "Sign out (ends the session)",
        description: "The session ends first, always. A session that began with single sign-on answers 200 with the provider's sign-out address to send the browser to; others 204.",
        response: { 200: Type.Object({ providerSignOutUrl: Type.String({ format: "uri" }) }), 204: NoContent, ...errors(403) },
      },
    },
    async (request, reply) => {
      const ended = await sessions.signOut(sessionToken(request), request.headers["x-csrf-token"]);
      reply.header("set-cookie", clearedSessionCookie(secure(request, config))).header("cache-control", "no-store");
      let providerSignOutUrl: string | undefined;
      if (providerSignOut && ended.signedInWith === "oidc") {
        try {
          providerSignOutUrl = await providerSignOut(ended);
        } catch (error) {
          // Signed out here all the same: only the provider's own session stays.
          request.log.warn({ err: error }, "the OpenID provider's sign-out address could not be found; the session ended here only");
        }
      }
      return providerSignOutUrl === undefined ? reply.code(204).send(null) : reply.code(200).send({ providerSignOutUrl });
    },
  );

  app.get(
    "/auth/session",
    { schema: { tags, summary: "The signed-in person, their organizations and the CSRF token", response: { 200: SessionViewSchema, ...errors() } } },
    async (request, reply) => {
      const view = await sessions.session(sessionToken(request));
      if (!view) throw unauthenticated("You are not signed in.");
      return reply.header("cache-control", "no-store").send(view);
    },
  );

  app.post(
    "/auth/switch-organization",
    {
      schema: { tags, summary: "Work in another of your organizations", body: SwitchOrganizationSchema, response: { 200: SessionViewSchema, ...errors(403, 404, 413, 422) } },
    },
    async (request, reply) => {
      const view = await sessions.switchOrganization(sessionToken(request), request.headers["x-csrf-token"], request.body.organizationId);
      return reply.header("cache-control", "no-store").send(view);
    },
  );

  app.get(
    "/auth/invitation",
    {
      schema: {
        tags,
        summary: "Describe an invitation or the first-start setup link",
        querystring: InvitationQuery,
        response: { 200: InvitationViewSchema, ...errors(404) },
      },
    },
    async (request, reply) => reply.header("cache-control", "no-store").send(await invitations.describe(request.query.token, sessionToken(request))),
  );

  app.post(
    "/auth/invitation",
    {
      schema: {
        tags,
        summary: "Accept an invitation (or the first-start setup link)",
        description:
          "When the address has no account, creates it with the chosen password and signs in. When it has one, the request must carry that account's session and CSRF token; the session then works in the organization.",
        body: AcceptInvitationSchema,
        response: { 200: SessionViewSchema, ...errors(403, 404, 409, 413, 422) },
      },
    },
    async (request, reply) => {
      requireSameOrigin(request, config);
      const accepted = await invitations.accept(request.body, sessionToken(request), request.headers["x-csrf-token"]);
      return sendSignedIn(reply, request, config, accepted);
    },
  );
}
