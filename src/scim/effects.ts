import { v7 as uuidv7 } from "uuid";
import type { Executor } from "../platform/database/index.js";
import { peopleRepository, type UserRow } from "../modules/people/repository.js";
import { sessionRepository } from "../modules/people/session-repository.js";
import { mappedStanding, nextRole } from "../identity/mapping.js";
import { identityRepository } from "../identity/repository.js";
import { ScimError } from "./errors.js";
import { scimRepository } from "./repository.js";

/**
 * What a SCIM change does to the organization's people (docs/identity.md, "What SCIM changes"):
 * an active user is a member, in the role its groups map to; an inactive or deleted one is not,
 * and their sessions in the organization end in the same transaction.
 */

/** The account of an address, made without a password when there is none (it signs in through the provider). */
export async function accountFor(ex: Executor, email: string, now: string): Promise<UserRow> {
  const found = await peopleRepository.findUserByEmail(ex, email);
  if (found) return found;
  await peopleRepository.insertUserIfAbsent(ex, { id: uuidv7(), email, password_hash: null, created_at: now });
  return (await peopleRepository.findUserByEmail(ex, email))!;
}

/** Makes an active SCIM user a member in the role their groups map to. */
export async function provision(ex: Executor, organizationId: string, scimUserId: string, userId: string, now: string): Promise<void> {
  const { mapping } = await identityRepository.settings(ex, organizationId);
  const groups = (await scimRepository.groupsOf(ex, organizationId, scimUserId)).map((g) => g.displayName);
  const current = await peopleRepository.membership(ex, organizationId, userId);
  const lastOwner = current === "owner" && (await peopleRepository.countOwners(ex, organizationId)) <= 1;
  // The provider's groups are the whole truth here: a user in no mapped group is a member.
  const standing = mappedStanding(mapping, groups);
  const role = nextRole({ ...standing, matched: true, role: standing.role ?? "member" }, current, lastOwner) ?? "member";
  if (current === undefined) await peopleRepository.upsertMembership(ex, { organization_id: organizationId, user_id: userId, role, created_at: now });
  else if (role !== current) await peopleRepository.setRole(ex, organizationId, userId, role);
}

/** Removes the person from the organization and ends their sessions in it. The last owner stays. */
export async function deprovision(ex: Executor, organizationId: string, userId: string): Promise<void> {
  const current = await peopleRepository.membership(ex, organizationId, userId);
  if (current === "owner" && (await peopleRepository.countOwners(ex, organizationId)) <= 1) {
    throw new ScimError(409, "This user is the organization's only owner and cannot be deactivated or deleted. Make someone else an owner first.", "mutability");
  }
  if (current !== undefined) await peopleRepository.deleteMembership(ex, organizationId, userId);
  await sessionRepository.deleteInOrganization(ex, userId, organizationId);
}

/**
 * Whom the mapping's team entries concern after a change to the SCIM user `scimUserId`: their address
 * and, while they are active, the names of their groups (null: they belong to no team through a group).
 */
export async function teamStandingOf(ex: Executor, organizationId: string, scimUserId: string): Promise<{ email: string; groups: string[] | null } | undefined> {
  const user = await scimRepository.user(ex, organizationId, scimUserId);
  if (!user) return undefined;
  const account = await peopleRepository.findUser(ex, user.user_id);
  if (!account) return undefined;
  if (Number(user.active) === 0) return { email: account.email, groups: null };
  return { email: account.email, groups: (await scimRepository.groupsOf(ex, organizationId, scimUserId)).map((g) => g.displayName) };
}
