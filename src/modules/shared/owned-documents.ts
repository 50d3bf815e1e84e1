import { Type } from "@sinclair/typebox";
import type { Executor } from "../../platform/database/index.js";
import type { FieldViolation } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import { resourceRepository } from "./resource-repository.js";
import { searchText, type Document, type DocumentDefinition } from "./document-service.js";
import type { DocumentRoutesOptions } from "./document-routes.js";

/** Data products and data contracts: documents a team owns through `info.owner`. */
export type OwnedDocument = Document & { info: { title: string; owner: string; description?: string; status?: string } };

/** Columns and authorization shared by every owned document. */
export function ownedDocument<D extends OwnedDocument>(what: string): Pick<DocumentDefinition<D>, "columns" | "authorize"> {
  return {
    columns: (doc) => ({
      title: doc.info.title,
      ownerTeamId: doc.info.owner,
      status: doc.info.status ?? null,
      searchText: searchText(doc.id, doc.info.title, doc.info.description),
    }),
    authorize: (p, _id, before, after) => policy.writeOwned(p, what, [before?.info.owner, after?.info.owner].filter((o) => o !== undefined)),
  };
}

export async function ownerViolations(ex: Executor, organizationId: string, owner: string): Promise<FieldViolation[]> {
  const team = await resourceRepository.get(ex, organizationId, "team", owner);
  return team ? [] : [{ field: "info.owner", message: `no team '${owner}' exists in this organization` }];
}

/** The list filters of owned documents: by owner team and by status. */
export const ownedFilters: Pick<DocumentRoutesOptions<OwnedDocument>, "filters" | "toFilter"> = {
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
