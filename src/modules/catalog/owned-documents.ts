import { Type, type TProperties } from "@sinclair/typebox";
import type { ContractFacts } from "../../contract-formats/types.js";
import type { Executor } from "../../platform/database/index.js";
import type { ProductFacts } from "../../product-formats/types.js";
import type { FieldViolation } from "../../platform/errors.js";
import { SafeText } from "../../platform/http/shapes.js";
import { policy, writeOperation } from "../../policies/index.js";
import { resourceRepository } from "./resource-repository.js";
import { searchText, type Document, type CatalogKind } from "./document-service.js";
import { documentWords } from "./document-words.js";
import type { DocumentRoutesOptions } from "./document-routes.js";

/** What an owned document says about itself, wherever its format keeps it: a contract's or a product's facts. */
export type OwnedFacts = Omit<ContractFacts, "version"> & Pick<ProductFacts, "archetype">;

/** Data products and data contracts: documents a team owns, each format naming it its own way. */
export function ownedDocument<D extends Document>(
  what: string,
  facts: (doc: D) => OwnedFacts,
  options: {
    /** Documents that may name no owner: the organization owns them, and only its principals change them. */
    ownerless?: (doc: D) => boolean;
    /** Where a document names its owner, said in every refusal. */
    howToOwn?: string;
  } = {},
): Pick<CatalogKind<D>, "columns" | "authorize"> {
  const ownerOf = (doc: D) => facts(doc).owner ?? (options.ownerless?.(doc) ? null : undefined);
  return {
    columns: (doc) => {
      const f = facts(doc);
      return {
        title: f.title,
        ownerTeamId: f.owner ?? null,
        status: f.status ?? null,
        domain: f.domain ?? null,
        archetype: f.archetype ?? null,
        searchText: searchText(doc.id, f.title, f.description, ...documentWords(doc)),
      };
    },
    authorize: (p, _id, before, after) =>
      policy.writeOwned(
        p,
        what,
        [before && ownerOf(before), after && ownerOf(after)].filter((o): o is string | null => o !== undefined),
        writeOperation(before, after),
        options.howToOwn,
      ),
  };
}

/** The owner must be an existing team of the organization. */
export async function ownerViolations(ex: Executor, organizationId: string, facts: OwnedFacts): Promise<FieldViolation[]> {
  if (facts.owner === undefined) return [{ field: facts.ownerField, message: "names no owner team" }];
  const team = await resourceRepository.get(ex, organizationId, "team", facts.owner);
  return team ? [] : [{ field: facts.ownerField, message: `no team '${facts.owner}' exists in this organization` }];
}

/** The values of two parameters that mean the same, either one alone, or undefined when neither was given. */
function anyOf(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (a === undefined && b === undefined) return undefined;
  return [...(a ?? []), ...(b ?? [])];
}

/** Values of a query parameter that may be repeated (`?teamId=a&teamId=b`): any of them matches. */
const Repeatable = (description: string) =>
  Type.Array(SafeText({ maxLength: 256 }), {
    maxItems: 100,
    description: `${description} Repeat the parameter to accept any of several.`,
  });

/**
 * The list filters data products and data contracts share, as the reference product names
 * them; `domainSource` says where the kind's formats name the domain. Every filter is a
 * condition the database answers (indexed columns, or the stored document's tags).
 */
export function ownedFilters(
  domainSource: string,
  options: { byName?: boolean } = {},
): Pick<DocumentRoutesOptions<Document>, "filters" | "toFilter"> {
  // The reference product's older names of two filters, which its own CLI still sends.
  const byName: TProperties = options.byName
    ? {
        owner: Type.Optional(SafeText({ maxLength: 256, description: "Only those owned by the team of this name (or id), exactly. An older name of `teamId`." })),
        domain: Type.Optional(Repeatable(`Only those in this business domain: an older name of \`domainId\`; any value of either matches.`)),
      }
    : {};
  return {
    filters: {
      teamId: Type.Optional(Repeatable("Only those owned by this team (its id).")),
      domainId: Type.Optional(Repeatable(`Only those in this business domain (exact match on ${domainSource}).`)),
      status: Type.Optional(SafeText({ maxLength: 200, description: "Only those with this status (exact match)." })),
      tag: Type.Optional(SafeText({ maxLength: 200, description: "Only those whose top-level `tags` include this tag (exact match)." })),
      sort: Type.Optional(Type.Union([Type.Literal("name")], { description: "`name`: by title, letter case ignored; creation order when absent." })),
      ...byName,
    },
    toFilter: (q) => ({
      ownerTeamId: q.teamId as unknown as string[] | undefined,
      ...(q.owner !== undefined ? { ownerTeamNameOrId: q.owner } : {}),
      domain: anyOf(q.domainId as unknown as string[] | undefined, q.domain as unknown as string[] | undefined),
      status: q.status,
      tag: q.tag,
      ...(q.sort === "name" ? { sort: "title" as const } : {}),
    }),
  };
}

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
}): Pick<CatalogKind<D>, "columns" | "authorize" | "validate"> {
  return {
    columns: (doc) => ({
      title: options.titleOf(doc) ?? null,
      ownerTeamId: options.ownerOf(doc) ?? null,
      status: options.statusOf?.(doc) ?? null,
      searchText: searchText(doc.id, ...options.searchOf(doc)),
    }),
    authorize: (p, _id, before, after) =>
      policy.writeOwned(p, options.what, [before, after].filter((d) => d !== undefined).map((d) => options.ownerOf(d!) ?? null), writeOperation(before, after)),
    async validate(ex, organizationId, doc) {
      const owner = options.ownerOf(doc);
      if (owner === undefined) return [];
      const team = await resourceRepository.get(ex, organizationId, "team", owner);
      return team ? [] : [{ field: options.ownerField, message: `no team '${owner}' exists in this organization` }];
    },
  };
}

/**
 * The owner-team list filter of the reference product's other resources. The reference product
 * takes the team's name there (GET /api/tags: "Use the team name (not the ID)"), while documents
 * name their owner by id: either finds the team's documents.
 */
export const ownerFilter: Pick<DocumentRoutesOptions<Document>, "filters" | "toFilter"> = {
  filters: {
    owner: Type.Optional(SafeText({ maxLength: 256, description: "Only those owned by the team of this name, as the reference product takes it, or of this id." })),
  },
  toFilter: (q) => ({ ownerTeamNameOrId: q.owner }),
};
