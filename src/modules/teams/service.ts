import type { Executor } from "../../platform/database/index.js";
import { conflict } from "../../platform/errors.js";
import { policy, writeOperation } from "../../policies/index.js";
import { audienceRepository } from "../../notifications/audience-repository.js";
import { apiKeyRepository } from "../api-keys/repository.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import { searchText, type CatalogKind } from "../catalog/document-service.js";
import type { Team } from "./shapes.js";
import { emitChangeEvent } from "../catalog/change-events.js";

export interface TeamHooks {
  /** How many open accesses (requested, approved or active) the team provides or consumes. */
  countOpenAccesses(ex: Executor, organizationId: string, teamId: string): Promise<number>;
}

export function teamKind(hooks: TeamHooks): CatalogKind<Team> {
  return {
    kind: "team",
    label: "Team",
    columns: (team) => ({
      title: team.name,
      ownerTeamId: team.id,
      status: null,
      searchText: searchText(team.id, team.name, team.description),
    }),
    authorize: (p, id, before, after) => policy.writeTeam(p, id, writeOperation(before, after)),
    emitChange: emitChangeEvent("Team"),
    // A deleted team's notification channels go with it, in the same transaction (docs/notifications.md).
    async written(ex, p, id, after) {
      if (after === undefined) await audienceRepository.removeTeamChannels(ex, p.organizationId, id);
    },
    async checkDeletable(ex, organizationId, team) {
      const owned = await resourceRepository.countOwnedBy(ex, organizationId, ["dataproduct", "datacontract", "asset", "sourcesystem", "definition", "tag"], team.id);
      const keys = await apiKeyRepository.countActiveForTeam(ex, organizationId, team.id);
      const accesses = await hooks.countOpenAccesses(ex, organizationId, team.id);
      if (owned > 0 || keys > 0 || accesses > 0) {
        throw conflict(
          `Team '${team.id}' is still in use: it owns ${owned} data product(s), contract(s) or other catalog resource(s), has ${keys} API key(s) ` +
            `and provides or consumes ${accesses} requested, approved or active access(es). Move, delete or close those first.`,
        );
      }
    },
  };
}
