import { Type, type Static } from "@sinclair/typebox";
import { SafeText } from "../../platform/http/shapes.js";
import type { PageKind } from "../../platform/http/page-paths.js";
import type { ResourceKind } from "../catalog/resource-repository.js";

/** The searchable kinds by the reference product's names (and Steward's `SOURCE_SYSTEM`). */
export const RESOURCE_TYPES = {
  DATA_PRODUCT: { kind: "dataproduct", page: "dataproducts" },
  DATA_CONTRACT: { kind: "datacontract", page: "datacontracts" },
  DATA_ASSET: { kind: "asset", page: "assets" },
  DEFINITION: { kind: "definition", page: "definitions" },
  TEAM: { kind: "team", page: "teams" },
  TAG: { kind: "tag", page: "tags" },
  SOURCE_SYSTEM: { kind: "sourcesystem", page: "sourcesystems" },
} as const satisfies Record<string, { kind: ResourceKind; page: PageKind }>;

export type ResourceType = keyof typeof RESOURCE_TYPES;
export const RESOURCE_TYPE_NAMES = Object.keys(RESOURCE_TYPES) as ResourceType[];

export const SEARCH_PAGE_SIZE = 60;
export const MAX_SEARCH_PAGE_SIZE = 200;

export const SearchQuerySchema = Type.Object({
  query: SafeText({ minLength: 1, maxLength: 1000, description: "Words to find; each matches the start of a word (`ord` finds `orders`), and all must match." }),
  resourceType: Type.Optional(Type.Union(RESOURCE_TYPE_NAMES.map((t) => Type.Literal(t)), { description: "Only results of this kind." })),
  teamId: Type.Optional(SafeText({ maxLength: 256, description: "Only results owned by this team (its id)." })),
  tag: Type.Optional(SafeText({ maxLength: 200, description: "Only results whose top-level `tags` include this tag." })),
  p: Type.Optional(Type.String({ pattern: "^[0-9]{1,6}$", description: "0-based page number." })),
  pageSize: Type.Optional(Type.String({ pattern: "^[0-9]{1,3}$", description: `Results per page, 1 to ${MAX_SEARCH_PAGE_SIZE}; ${SEARCH_PAGE_SIZE} when absent.` })),
});

export const SearchResultSchema = Type.Object(
  {
    id: Type.String(),
    url: Type.String({ description: "The resource's page in the web app." }),
    ownerId: Type.Union([Type.String(), Type.Null()], { description: "The owner team's id." }),
    ownerName: Type.Union([Type.String(), Type.Null()], { description: "The owner team's name." }),
    name: Type.String(),
    resourceType: Type.Union(RESOURCE_TYPE_NAMES.map((t) => Type.Literal(t))),
    description: Type.Union([Type.String(), Type.Null()]),
  },
  { title: "SearchResult" },
);

export const SearchAnswerSchema = Type.Object(
  {
    query: Type.String({ description: "The query as sent." }),
    results: Type.Array(SearchResultSchema, { description: "Best first; a `Link` header names the next page when there is one." }),
  },
  { title: "SearchAnswer" },
);

export type SearchResult = Static<typeof SearchResultSchema>;
export type SearchAnswer = Static<typeof SearchAnswerSchema>;
