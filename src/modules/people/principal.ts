import type { Principal } from "../../platform/auth.js";
import type { Executor } from "../../platform/database/index.js";
import { personScope } from "../../policies/index.js";
import { rolesInForce, teamPermissionsOf, type TeamRole } from "../../policies/team-roles.js";
import { identityRepository } from "../../identity/repository.js";
import { normalizeEmail } from "./addresses.js";
import { peopleRepository, type Role, type UserRow } from "./repository.js";

/**
 * What a person may do in an organization, in one place: the web app's session and the API keys
 * bound to a person (`user`, `user_read`) both end here. Owners act for the whole organization,
 * members for the teams whose documents list their address under `members`, each with what their
 * team role permits there.
 */
export async function personPrincipal(ex: Executor, organizationId: string, user: Pick<UserRow, "id" | "email">, role: Role): Promise<Principal> {
  const scope = personScope(role);
  if (scope === "organization") return { organizationId, scope, teamIds: [], userId: user.id };
  const email = normalizeEmail(user.email);
  const teamIds: string[] = [];
  const teamPermissions: Record<string, readonly string[]> = {};
  const teamRoles: Record<string, string> = {};
  let roles: readonly TeamRole[] | undefined;
  for (const row of await peopleRepository.teamDocsMentioning(ex, organizationId, email)) {
    const members = (JSON.parse(row.doc) as { members?: unknown }).members;
    if (!Array.isArray(members)) continue;
    const member = members.find((m) => typeof m?.emailAddress === "string" && normalizeEmail(m.emailAddress) === email);
    if (!member) continue;
    teamIds.push(row.id);
    // What the person may do for the team: their team role's permissions (docs/identity.md); listed without a role, a `member`.
    if (roles === undefined) {
      const settings = await identityRepository.teamRoles(ex, organizationId);
      roles = rolesInForce(settings.mode, settings.roles);
    }
    const role = typeof member.role === "string" ? member.role : "member";
    teamPermissions[row.id] = [...teamPermissionsOf(roles, role)];
    teamRoles[row.id] = role;
  }
  return { organizationId, scope, teamIds, userId: user.id, teamPermissions, teamRoles };
}

/**
 * The principal of an API key bound to the person `userId`: that person's principal now (their
 * role and teams as they are at this request), read-only for `user_read`. Undefined when the
 * person is no longer a member of the organization: the key then works no more.
 */
export async function personKeyPrincipal(ex: Executor, organizationId: string, userId: string, readOnly: boolean): Promise<Principal | undefined> {
  const user = await peopleRepository.findUser(ex, userId);
  if (!user) return undefined;
  const role = await peopleRepository.membership(ex, organizationId, userId);
  if (!role) return undefined;
  const person = await personPrincipal(ex, organizationId, user, role);
  if (!readOnly) return person;
  return { ...person, scope: person.scope === "organization" ? "organization_read" : "team_read" };
}
