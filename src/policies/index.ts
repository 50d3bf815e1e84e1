import type { Principal } from "../platform/auth.js";
import { forbidden } from "../platform/errors.js";
import { OPERATION_PERMISSIONS, type TeamOperation } from "./team-roles.js";

/**
 * Who may do what (docs/security.md, "Scopes"), in one place. Organization-scoped principals may
 * do everything in their organization; team-scoped ones (team keys, members signed in to the web
 * app) read everything and change only what their teams own; read-only and connector scopes are
 * first held to what `scopes.ts` lets them do at all. Every check throws a 403 problem
 * when it fails; reads need no check beyond the organization boundary, which the repositories
 * enforce.
 */

/** Whether the principal may change what `teamId` owns. A `team_read` key acts for no one. */
const actsFor = (p: Principal, teamId: string | null | undefined) =>
  p.scope === "organization" || (p.scope === "team" && teamId != null && p.teamIds.includes(teamId));

const who = (p: Principal) =>
  p.scope === "team_read" || p.scope === "organization_read"
    ? "a read-only key"
    : p.scope === "connector"
      ? "a connector key"
      : p.teamIds.length === 1
        ? `team '${p.teamIds[0]}'`
        : `teams ${p.teamIds.map((t) => `'${t}'`).join(", ") || "(none)"}`;

/** What an organization role lets a signed-in person do: owners everything, members what their teams own. */
export function personScope(role: "owner" | "member"): "organization" | "team" {
  return role === "owner" ? "organization" : "team";
}

export { accessPolicy } from "./access.js";
export { scopePermits, type Operation, type ScopeVerdict } from "./scopes.js";

/** Throws 403 unless a person's role in `teamId` grants what `operation` needs. Keys and owners carry no team permissions. */
export function checkTeamPermission(p: Principal, teamId: string, operation: TeamOperation): void {
  if (p.teamPermissions === undefined) return;
  const needed = OPERATION_PERMISSIONS[operation];
  if ((p.teamPermissions[teamId] ?? []).includes(needed)) return;
  throw forbidden(`Your role in team '${teamId}' does not allow this: it needs the team permission ${needed}.`);
}

export type WriteOperation = "create" | "update" | "delete";

/** What a write does, from the document before and after it. */
export const writeOperation = (before: unknown, after: unknown): WriteOperation => (before === undefined ? "create" : after === undefined ? "delete" : "update");

export const policy = {
  /** List, add, change and remove the people of an organization. */
  manageMembers(p: Principal): void {
    if (p.scope !== "organization") throw forbidden("Only organization owners and organization-scoped API keys may manage members.");
  },

  /** See who belongs to the organization: those who manage members, and organization-wide readers. */
  readMembers(p: Principal): void {
    if (p.scope !== "organization" && p.scope !== "organization_read") {
      throw forbidden("Only organization owners, organization-scoped and organization_read API keys may list members.");
    }
  },

  manageApiKeys(p: Principal): void {
    if (p.scope !== "organization") throw forbidden("Only organization-scoped API keys and organization owners may manage API keys.");
  },

  /** Register a connector, change or delete its record and state. */
  manageConnectors(p: Principal): void {
    if (p.scope !== "organization" && p.scope !== "connector") throw forbidden("Only organization-scoped and connector API keys and organization owners may manage connectors.");
  },

  /** Read connectors and their state. */
  readConnectors(p: Principal): void {
    if (p.scope !== "organization" && p.scope !== "organization_read" && p.scope !== "connector") {
      throw forbidden("Only organization owners, organization-scoped, organization_read and connector API keys may read connectors.");
    }
  },

  /** Create, change or delete what governs the whole organization: policies, classification schemes, certifications. */
  governOrganization(p: Principal, what: string): void {
    if (p.scope !== "organization") throw forbidden(`Only organization-scoped API keys and organization owners may change ${what}.`);
  },

  /** Assign or remove a restricted certification on a data product (docs/policies.md). */
  assignRestrictedCertification(p: Principal, certification: string): void {
    if (p.scope !== "organization") {
      throw forbidden(`The certification '${certification}' is restricted: only organization-scoped API keys and organization owners may assign or remove it.`);
    }
  },

  /** Create, change or delete the team `teamId`. */
  writeTeam(p: Principal, teamId: string, operation: WriteOperation = "update"): void {
    if (actsFor(p, teamId)) {
      if (operation !== "create") checkTeamPermission(p, teamId, operation === "delete" ? "team.delete" : "team.update");
      return;
    }
    throw forbidden(`A principal of ${who(p)} may change only its own team, not '${teamId}'.`);
  },

  /**
   * Create, change or delete a data product or data contract. `owners` are the owner team before
   * and after the change: a team principal may neither take over nor give away what it does not own.
   */
  writeOwned(p: Principal, what: string, owners: Array<string | null | undefined>, operation: WriteOperation = "update", howToOwn?: string): void {
    const hint = howToOwn === undefined ? "" : ` ${howToOwn}`;
    for (const owner of owners) {
      if (actsFor(p, owner)) {
        if (owner != null) checkTeamPermission(p, owner, `resource.${operation}`);
        continue;
      }
      if (owner == null) throw forbidden(`Only organization-scoped principals may change ${what}s that no team owns.${hint}`);
      throw forbidden(`A principal of ${who(p)} may change only ${what}s owned by its team, not one owned by '${owner}'.${hint}`);
    }
  },

  /**
   * Read, add, change or remove the notification channels of team `teamId`. Reading needs the
   * same right as changing: a channel's endpoint is itself a credential (an incoming-webhook URL).
   */
  manageNotificationChannels(p: Principal, teamId: string): void {
    if (actsFor(p, teamId)) return;
    throw forbidden(`A principal of ${who(p)} may manage only its own team's notification channels, not those of '${teamId}'.`);
  },

  /** The in-app notifications and their settings belong to a person signed in to the web app. */
  readOwnNotifications(p: Principal): string {
    if (p.userId === undefined) throw forbidden("Notifications belong to people: sign in to the web app to read them; an API key has none.");
    return p.userId;
  },

  /**
   * Post lineage that names a data product as the one its runs work for (docs/lineage.md): a team
   * principal only for a product its team owns, so no team can make another one look like a reader.
   */
  postLineageFor(p: Principal, dataProductId: string, ownerTeamId: string | null): void {
    if (actsFor(p, ownerTeamId)) return;
    throw forbidden(`A principal of ${who(p)} may post lineage only for data products its team owns, not for '${dataProductId}'.`);
  },

  /**
   * Whose lineage events the principal may delete: every one (undefined) for organization
   * principals, those posted by its own teams for team principals.
   */
  lineageDeletableTeams(p: Principal): readonly string[] | undefined {
    if (p.scope === "organization") return undefined;
    if (p.scope === "team") return p.teamIds;
    throw forbidden(`A principal of ${who(p)} may not delete lineage events.`);
  },

  /**
   * Report a use of a data product (docs/lineage.md, "Usage"): a team principal only a use of a
   * product its team owns, or one by its own team or a product its team owns, so no team can make
   * another look like a user of what it may not read.
   */
  postUsage(p: Principal, use: { providerTeamId: string | null; consumerTeamId: string | null; dataProductId: string | null }): void {
    if (actsFor(p, use.providerTeamId) || actsFor(p, use.consumerTeamId)) return;
    throw forbidden(`A principal of ${who(p)} may report only uses of its own team's data products or by its own team, not a use of '${use.dataProductId ?? "(no data product)"}'.`);
  },

  /** Whose usage spans the principal may delete: every one (undefined) for organization principals, its teams' posts for team principals. */
  usageDeletableTeams(p: Principal): readonly string[] | undefined {
    if (p.scope === "organization") return undefined;
    if (p.scope === "team") return p.teamIds;
    throw forbidden(`A principal of ${who(p)} may not delete usage traces.`);
  },

  /**
   * Publish a breaking change to a data contract that approved accesses depend on, without raising
   * its major version (`?allowBreaking=true`): a decision for the organization, not one team.
   */
  overrideBreakingChange(p: Principal): void {
    if (p.scope !== "organization") {
      throw forbidden("Only organization-scoped API keys and organization owners may publish a breaking change with allowBreaking=true; raise the contract's major version instead.");
    }
  },
};
