import type { Principal } from "../platform/auth.js";
import { conflict, forbidden } from "../platform/errors.js";
import { decide, type AccessAction, type Side, type Stage } from "../modules/access/lifecycle.js";
import { OPERATION_PERMISSIONS, type TeamOperation } from "./team-roles.js";

/**
 * Who may act on an access (docs/product.md §5): the provider side is an organization-scoped
 * principal or the provider product's current owner team; the consumer side an
 * organization-scoped principal or the consumer's team. What each side may do from which stage
 * is the table in `modules/access/lifecycle.ts`; this applies it to a principal.
 */

export interface AccessTeams {
  /** The provider product's owner now; null when the product has been deleted. */
  providerTeamId: string | null;
  /** The consuming team now; null for a person, or when the team or product has been deleted. */
  consumerTeamId: string | null;
}

export function sidesOf(p: Principal, teams: AccessTeams): Set<Side> {
  const sides = new Set<Side>();
  if (p.scope === "organization") return new Set(["consumer", "provider"]);
  if (p.scope !== "team") return sides;
  if (teams.consumerTeamId !== null && p.teamIds.includes(teams.consumerTeamId)) sides.add("consumer");
  if (teams.providerTeamId !== null && p.teamIds.includes(teams.providerTeamId)) sides.add("provider");
  return sides;
}

/** The team permission each action needs of a person acting for a side (src/policies/team-roles.ts). */
const ACTION_OPERATIONS: Record<AccessAction, TeamOperation> = {
  approve: "access.approve",
  reject: "access.reject",
  cancel: "access.cancel",
  "change-agreement": "access.update",
  "change-terms": "access.update",
  "change-labels": "access.update",
  "change-dates": "access.update",
  delete: "access.delete",
  "report-provisioning": "access.update",
};

/** The sides a principal takes for `operation`: a person only for teams where their role grants it. */
export function permittedSidesOf(p: Principal, teams: AccessTeams, operation: TeamOperation): Set<Side> {
  const sides = sidesOf(p, teams);
  if (p.teamPermissions === undefined) return sides;
  const needed = OPERATION_PERMISSIONS[operation];
  for (const side of [...sides]) {
    const teamId = side === "consumer" ? teams.consumerTeamId : teams.providerTeamId;
    if (teamId === null || !(p.teamPermissions[teamId] ?? []).includes(needed)) sides.delete(side);
  }
  return sides;
}

export const accessPolicy = {
  /** A new request is made by its consumer side. */
  request(p: Principal, consumerTeamId: string | null): void {
    if (permittedSidesOf(p, { consumerTeamId, providerTeamId: null }, "access.request").has("consumer")) return;
    throw forbidden(
      consumerTeamId === null
        ? "Only organization-scoped principals may request access for a person (rule: the consumer side creates a request)."
        : `Only the consumer side may request this access: an organization-scoped principal or team '${consumerTeamId}' (rule: the consumer side creates a request).`,
    );
  },

  /** Any change to an access at all needs one of its sides. */
  party(p: Principal, teams: AccessTeams): void {
    if (sidesOf(p, teams).size > 0) return;
    throw forbidden("Only the consumer or the provider side of an access may change it: an organization-scoped principal, or the consuming or providing team.");
  },

  /**
   * Approving an access that needs several approvals (docs/policies.md): a person the policies
   * name as eligible approves as the provider side would, from the same stages; anyone else
   * needs the provider side and to be eligible as well.
   */
  approveAsEligible(p: Principal, teams: AccessTeams, stage: Stage, standing: { eligible: boolean; why?: string; waiting?: string }): void {
    if (!standing.eligible) {
      this.act(p, teams, "approve", stage);
      throw forbidden(standing.why ?? "This access needs approvals from the people its policies name, and this principal is not one of them (docs/policies.md).");
    }
    const verdict = decide("approve", stage, new Set<Side>(["provider"]));
    if (!verdict.allowed) throw verdict.status === 403 ? forbidden(verdict.detail) : conflict(verdict.detail);
    // A later level of approval waits for the earlier one (docs/policies.md, approval order).
    if (standing.waiting !== undefined) throw conflict(standing.waiting);
  },

  /** Throws the 403 or 409 problem of lifecycle.ts's RULES when the principal may not do `action` now. */
  act(p: Principal, teams: AccessTeams, action: AccessAction, stage: Stage): void {
    // A connector key grants what the provider approved: it reports provisioning for the provider, and does nothing else.
    const sides = p.scope === "connector" && action === "report-provisioning" ? new Set<Side>(["provider"]) : permittedSidesOf(p, teams, ACTION_OPERATIONS[action]);
    const verdict = decide(action, stage, sides);
    if (verdict.allowed) return;
    throw verdict.status === 403 ? forbidden(verdict.detail) : conflict(verdict.detail);
  },
};
