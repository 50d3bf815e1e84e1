import { Type } from "@sinclair/typebox";
import { notFound } from "../platform/errors.js";
import { pageWindow, sendPage } from "../platform/http/paging.js";
import { errors, PageQuery, SafeText } from "../platform/http/shapes.js";
import { principalOf, type App } from "../platform/http/types.js";
import { normalizeEmail } from "../modules/people/addresses.js";
import type { MemberService, MemberView } from "../modules/people/members.js";
import type { TeamRolesService } from "./team-roles.js";
import { TeamRolesSettingsSchema } from "./team-roles.js";

/** An organization member in the reference's shape (`OrganizationMember`). */
export const OrganizationMemberSchema = Type.Object(
  {
    emailAddress: Type.String(),
    userId: Type.String(),
    role: Type.Union([Type.Literal("Owner"), Type.Literal("Member")]),
  },
  { title: "OrganizationMember" },
);

const asReference = (m: MemberView) => ({ emailAddress: m.email, userId: m.userId!, role: m.role === "owner" ? ("Owner" as const) : ("Member" as const) });

/** `/api/organization/members` (active members, oldest first) and `/api/settings/team-roles`. */
export function organizationRoutes(app: App, members: MemberService, teamRoles: TeamRolesService): void {
  const tags = ["organization"];
  app.get(
    "/api/organization/members",
    {
      schema: {
        tags,
        summary: "Get all organization members",
        description: "Members who joined, oldest first; pending invitations are under /api/members.",
        querystring: Type.Object(PageQuery),
        response: { 200: Type.Array(OrganizationMemberSchema), ...errors(403) },
      },
    },
    async (request, reply) => {
      const { page, size, offset } = pageWindow(request.query);
      const all = (await members.list(principalOf(request), { offset: 0, limit: Number.MAX_SAFE_INTEGER }))
        .filter((m) => m.status === "active")
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.email < b.email ? -1 : 1));
      return sendPage(request, reply, all.slice(offset, offset + size + 1).map(asReference), size, page);
    },
  );
  app.get(
    "/api/organization/members/:emailAddress",
    {
      schema: {
        tags,
        summary: "Get the current state of the organization member",
        params: Type.Object({ emailAddress: SafeText({ minLength: 3, maxLength: 320 }) }),
        response: { 200: OrganizationMemberSchema, ...errors(403, 404) },
      },
    },
    async (request) => {
      const email = normalizeEmail(request.params.emailAddress);
      const member = (await members.list(principalOf(request), { offset: 0, limit: Number.MAX_SAFE_INTEGER })).find((m) => m.email === email && m.status === "active");
      if (!member) throw notFound("Organization member", email);
      return asReference(member);
    },
  );

  app.get(
    "/api/settings/team-roles",
    { schema: { tags: ["team roles"], summary: "Get the team roles configuration", response: { 200: TeamRolesSettingsSchema, ...errors(403) } } },
    async (request, reply) => reply.header("cache-control", "no-store").send(await teamRoles.get(principalOf(request))),
  );
  app.put(
    "/api/settings/team-roles",
    {
      schema: {
        tags: ["team roles"],
        summary: "Set the team roles configuration",
        description:
          "`default` uses the built-in roles (owner, member) and keeps any custom catalog. `custom-team-roles` replaces the catalog with exactly the roles sent: 409 when it is empty or drops a role a team member still has; 400 for an unknown permission or a duplicate name.",
        body: TeamRolesSettingsSchema,
        response: { 200: TeamRolesSettingsSchema, ...errors(400, 403, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => reply.header("cache-control", "no-store").send(await teamRoles.put(principalOf(request), request.body)),
  );
}
