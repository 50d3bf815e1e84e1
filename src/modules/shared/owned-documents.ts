import { Type } from "@sinclair/typebox";
import type { Executor } from "../../platform/database/index.js";
import type { FieldViolation } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import { resourceRepository } from "./resource-repository.js";
import { searchText, type Document, type DocumentDefinition } from "./document-service.js";
import type { DocumentRoutesOptions } from "./document-routes.js";

/** What an owned document says about itself, wherever its format keeps it. */
export interface OwnedFacts {
  title: string;
  /** Id of the owning team; undefined when the document names none (a violation). */
  owner?: string;
  /** Path of the member the owner is read from, for violations. */
  ownerField: string;
  status?: string;
  description?: string;
}

/** Data products and data contracts: documents a team owns, each format naming it its own way. */
export function ownedDocument<D extends Document>(what: string, facts: (doc: D) => OwnedFacts): Pick<DocumentDefinition<D>, "columns" | "authorize"> {
  return {
    columns: (doc) => {
      const f = facts(doc);
      return { title: f.title, ownerTeamId: f.owner ?? null, status: f.status ?? null, searchText: searchText(doc.id, f.title, f.description) };
    },
    authorize: (p, _id, before, after) =>
      policy.writeOwned(p, what, [before && facts(before).owner, after && facts(after).owner].filter((o): o is string => o !== undefined)),
  };
}

/** The owner must be an existing team of the organization. */
export async function ownerViolations(ex: Executor, organizationId: string, facts: OwnedFacts): Promise<FieldViolation[]> {
  if (facts.owner === undefined) return [{ field: facts.ownerField, message: "names no owner team" }];
  const team = await resourceRepository.get(ex, organizationId, "team", facts.owner);
  return team ? [] : [{ field: facts.ownerField, message: `no team '${facts.owner}' exists in this organization` }];
}

/** The list filters of owned documents: by owner team and by status. */
export const ownedFilters: Pick<DocumentRoutesOptions<Document>, "filters" | "toFilter"> = {
  filters: {
    teamId: Type.Optional(Type.String({ description: "Only those owned by this team." })),
    status: Type.Optional(Type.String({ description: "Only those with this info.status." })),
  },
  toFilter: (q) => ({ ownerTeamId: q.teamId, status: q.status }),
};

/**
 * Documents of the reference product's other resources (assets, source systems, definitions,
 * tags): each names its owner team in its own place, and some may have none. Without an owner,
 * only organization-wide principals may change the document.
 */
export function teamOwned<D extends Document>(options: {
  what: string;
  /** Where the document names its owner, for violations, e.g. `info.owner`. */
  ownerField: string;
  ownerOf(doc: D): string | undefined;
  titleOf(doc: D): string | undefined;
  statusOf?(doc: D): string | undefined;
  searchOf(doc: D): unknown[];
}): Pick<DocumentDefinition<D>, "columns" | "authorize" | "validate"> {
  return {
    columns: (doc) => ({
      title: options.titleOf(doc) ?? null,
      ownerTeamId: options.ownerOf(doc) ?? null,
      status: options.statusOf?.(doc) ?? null,
      searchText: searchText(doc.id, ...options.searchOf(doc)),
    }),
    authorize: (p, _id, before, after) =>
      policy.writeOwned(p, options.what, [before, after].filter((d) => d !== undefined).map((d) => options.ownerOf(d!) ?? null)),
    async validate(ex, organizationId, doc) {
      const owner = options.ownerOf(doc);
      if (owner === undefined) return [];
      const team = await resourceRepository.get(ex, organizationId, "team", owner);
      return team ? [] : [{ field: options.ownerField, message: `no team '${owner}' exists in this organization` }];
    },
  };
}

/** The owner-team list filter of the reference product's other resources. */
export const ownerFilter: Pick<DocumentRoutesOptions<Document>, "filters" | "toFilter"> = {
  filters: {
    owner: Type.Optional(Type.String({ description: "Only those owned by this team (its id)." })),
  },
  toFilter: (q) => ({ ownerTeamId: q.owner }),
};
