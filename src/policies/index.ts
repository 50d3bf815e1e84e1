import type { Principal } from "../platform/auth.js";
import { forbidden } from "../platform/errors.js";

/**
 * Who may do what (PRODUCT.md §2), in one place. Organization keys may do everything in their
 * organization; team keys read everything and change only what their team owns. Every check
 * throws a 403 problem when it fails; reads need no check beyond the organization boundary,
 * which the repositories enforce.
 */
export const policy = {
  manageApiKeys(p: Principal): void {
    if (p.scope !== "organization") throw forbidden("Only organization-scoped API keys may manage API keys.");
  },

  manageConnectors(p: Principal): void {
    if (p.scope !== "organization") throw forbidden("Only organization-scoped API keys may manage connectors.");
  },

  /** Create, change or delete the team `teamId`. */
  writeTeam(p: Principal, teamId: string): void {
    if (p.scope === "organization" || p.teamId === teamId) return;
    throw forbidden(`A key of team '${p.teamId}' may change only its own team, not '${teamId}'.`);
  },

  /**
   * Create, change or delete a data product or data contract. `owners` are the owner team before
   * and after the change: a team key may neither take over nor give away what it does not own.
   */
  writeOwned(p: Principal, what: string, owners: Array<string | null | undefined>): void {
    if (p.scope === "organization") return;
    for (const owner of owners) {
      if (owner !== p.teamId) {
        throw forbidden(`A key of team '${p.teamId}' may change only ${what}s whose info.owner is '${p.teamId}'.`);
      }
    }
  },

  /** Create or cancel an access request: the consuming side. */
  consumeAccess(p: Principal, consumerTeamId: string | null | undefined): void {
    if (p.scope === "organization" || (consumerTeamId != null && consumerTeamId === p.teamId)) return;
    throw forbidden(`A key of team '${p.teamId}' may request or cancel only accesses its team consumes.`);
  },

  /** Change an access request's other fields: either side of it. */
  updateAccess(p: Principal, consumerTeamId: string | null | undefined, providerTeamId: string | null | undefined): void {
    if (p.scope === "organization" || (p.teamId !== null && (p.teamId === consumerTeamId || p.teamId === providerTeamId))) return;
    throw forbidden(`A key of team '${p.teamId}' may change only accesses its team consumes or provides.`);
  },

  /** Delete an access request outright (rather than cancel it). */
  deleteAccess(p: Principal): void {
    if (p.scope !== "organization") throw forbidden("Only organization-scoped API keys may delete access requests; cancel it instead.");
  },

  /** Approve, reject or report provisioning of an access request: the providing side. */
  provideAccess(p: Principal, providerTeamId: string | null | undefined): void {
    if (p.scope === "organization" || (providerTeamId != null && providerTeamId === p.teamId)) return;
    throw forbidden(`A key of team '${p.teamId}' may decide on or provision only accesses its team provides.`);
  },
};
