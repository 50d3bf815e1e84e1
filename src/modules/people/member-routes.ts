import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import { badRequest, preconditionFailed } from "../../platform/errors.js";
import { answerPage } from "../../platform/http/paging.js";
import { errors, NoContent, PageQuery } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import type { Precondition } from "./member-rules.js";
import type { PeopleService } from "./service.js";
import { EmailParams, MemberInputSchema, MemberSchema } from "./shapes.js";

/** Members carry no ETags: `*` is the one precondition value that means something for them. */
function preconditionOf(request: FastifyRequest): Precondition {
  const ifMatch = request.headers["if-match"];
  const ifNoneMatch = request.headers["if-none-match"];
  if (ifMatch !== undefined && ifMatch.trim() !== "*") throw preconditionFailed("Members have no ETags: If-Match accepts only *.");
  if (ifMatch !== undefined && ifNoneMatch !== undefined) throw badRequest("Send If-Match or If-None-Match, not both.");
  if (ifMatch !== undefined) return "if-match";
  if (ifNoneMatch?.trim() === "*") return "if-none-match";
  return "none";
}

/** `/api/members`: the people of an organization (owners and organization keys). */
export function memberRoutes(app: App, people: PeopleService): void {
  const tags = ["members"];
  const { members } = people;

  app.get(
    "/api/members",
    {
      schema: {
        tags,
        summary: "List the organization's members and pending invitations",
        description: "By address; a `Link` header names the next page when there is one.",
        querystring: Type.Object(PageQuery),
        response: { 200: Type.Array(MemberSchema), ...errors(403) },
      },
    },
    async (request, reply) => answerPage(request, reply, request.query, (offset, limit) => members.list(principalOf(request), { offset, limit })),
  );

  app.put(
    "/api/members/:email",
    {
      schema: {
        tags,
        summary: "Invite a person to the organization, or change a member's role",
        description:
          "For an address that is not a member, answers `invitationUrl`: a one-time link (24 h) that lets only that address join only this organization; the organization never sets a password. " +
          "For a member, raises the role; lowering an owner to member needs `If-Match: *` (without it: 409). `If-None-Match: *` only adds: 412 when the address is a member or invited already. " +
          "Team membership comes from the `members` of team documents.",
        params: EmailParams,
        body: MemberInputSchema,
        response: { 200: MemberSchema, ...errors(403, 409, 412, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const member = await members.put(principalOf(request), request.params.email, request.body.role, preconditionOf(request));
      return reply.header("cache-control", "no-store").send(member);
    },
  );

  app.delete(
    "/api/members/:email",
    {
      schema: {
        tags,
        summary: "Remove a person from the organization, or withdraw their invitation",
        params: EmailParams,
        response: { 204: NoContent, ...errors(403, 404, 409) },
      },
    },
    async (request, reply) => {
      await members.remove(principalOf(request), request.params.email);
      return reply.code(204).send(null);
    },
  );
}
