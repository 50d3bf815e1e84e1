import { Type } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../platform/config.js";
import { forbidden, Problem } from "../../platform/errors.js";
import { errors, NoContent } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from "./cookies.js";
import { EmailParams, MemberInputSchema, MemberSchema, SessionViewSchema, SetupQuery, SetupSchema, SetupViewSchema, SignInSchema, SwitchOrganizationSchema } from "./shapes.js";
import { SESSION_MAX_MS, type PeopleService, type SignedIn } from "./service.js";

const tags = ["sign-in"];

/** The session token a request carries in its cookie. */
export const sessionToken = (request: FastifyRequest) => readCookie(request.headers.cookie, SESSION_COOKIE);

function secure(request: FastifyRequest, config: Config): boolean {
  return config.appUrl.startsWith("https:") || request.protocol === "https" || request.headers["x-forwarded-proto"] === "https";
}

/** Sign-in and setup take no CSRF token (there is no session yet); a browser's Origin must at least be this site. */
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

function sendSignedIn(reply: FastifyReply, request: FastifyRequest, config: Config, signedIn: SignedIn) {
  return reply
    .header("set-cookie", sessionCookie(signedIn.token, { secure: secure(request, config), maxAgeSeconds: SESSION_MAX_MS / 1000 }))
    .header("cache-control", "no-store")
    .send(signedIn.view);
}

/** `/auth/*`: how people sign in to the web app. The web app then calls `/api` with the session cookie. */
export function authRoutes(app: App, people: PeopleService, config: Config): void {
  app.post(
    "/auth/sign-in",
    {
      schema: {
        tags,
        summary: "Sign in with email and password",
        description: "Sets the HttpOnly session cookie `steward_session`. Changes made with it must send the returned csrfToken in `x-csrf-token`.",
        body: SignInSchema,
        response: { 200: SessionViewSchema, ...errors(403, 422, 429) },
      },
    },
    async (request, reply) => {
      requireSameOrigin(request, config);
      return sendSignedIn(reply, request, config, await people.signIn(request.body));
    },
  );

  app.post(
    "/auth/sign-out",
    { schema: { tags, summary: "Sign out (ends the session)", response: { 204: NoContent, ...errors(403) } } },
    async (request, reply) => {
      await people.signOut(sessionToken(request), request.headers["x-csrf-token"]);
      return reply.code(204).header("set-cookie", clearedSessionCookie(secure(request, config))).send(null);
    },
  );

  app.get(
    "/auth/session",
    { schema: { tags, summary: "The signed-in person, their organizations and the CSRF token", response: { 200: SessionViewSchema, ...errors() } } },
    async (request, reply) => {
      const view = await people.session(sessionToken(request));
      if (!view) throw new Problem(401, "You are not signed in.");
      return reply.header("cache-control", "no-store").send(view);
    },
  );

  app.post(
    "/auth/switch-organization",
    {
      schema: { tags, summary: "Work in another of your organizations", body: SwitchOrganizationSchema, response: { 200: SessionViewSchema, ...errors(403, 404, 422) } },
    },
    async (request, reply) => {
      const view = await people.switchOrganization(sessionToken(request), request.headers["x-csrf-token"], request.body.organizationId);
      return reply.header("cache-control", "no-store").send(view);
    },
  );

  app.get(
    "/auth/setup",
    { schema: { tags, summary: "Describe a one-time setup link", querystring: SetupQuery, response: { 200: SetupViewSchema, ...errors(404) } } },
    async (request, reply) => reply.header("cache-control", "no-store").send(await people.describeSetup(request.query.token)),
  );

  app.post(
    "/auth/setup",
    {
      schema: {
        tags,
        summary: "Use a one-time setup link: choose a password (and on first start the address) and sign in",
        body: SetupSchema,
        response: { 200: SessionViewSchema, ...errors(403, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      requireSameOrigin(request, config);
      return sendSignedIn(reply, request, config, await people.completeSetup(request.body));
    },
  );
}

/** `/api/members`: the people of an organization (owners and organization keys). */
export function memberRoutes(app: App, people: PeopleService): void {
  const memberTags = ["members"];
  app.get(
    "/api/members",
    { schema: { tags: memberTags, summary: "List the organization's members", response: { 200: Type.Array(MemberSchema), ...errors(403) } } },
    async (request) => people.listMembers(principalOf(request)),
  );

  app.put(
    "/api/members/:email",
    {
      schema: {
        tags: memberTags,
        summary: "Add a person to the organization or change their role",
        description:
          "Creates the account when the address has none. While the account has no password the response carries `setupUrl`, a one-time link (24 h) to choose one. Team membership comes from the `members` of team documents.",
        params: EmailParams,
        body: MemberInputSchema,
        response: { 200: MemberSchema, ...errors(403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const member = await people.putMember(principalOf(request), request.params.email, request.body.role);
      return reply.header("cache-control", "no-store").send(member);
    },
  );

  app.delete(
    "/api/members/:email",
    {
      schema: { tags: memberTags, summary: "Remove a person from the organization", params: EmailParams, response: { 204: NoContent, ...errors(403, 404, 409) } },
    },
    async (request, reply) => {
      await people.removeMember(principalOf(request), request.params.email);
      return reply.code(204).send(null);
    },
  );
}
