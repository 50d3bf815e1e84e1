import type { Database } from "../../platform/database/index.js";
import type { Principal } from "../../platform/auth.js";
import { pagePath } from "../../platform/http/page-paths.js";
import { searchRepository } from "./repository.js";
import { RESOURCE_TYPE_NAMES, RESOURCE_TYPES, type ResourceType, type SearchResult } from "./shapes.js";
import { searchTerms } from "./terms.js";

export interface SearchRequest {
  query: string;
  resourceType?: ResourceType;
  teamId?: string;
  tag?: string;
  offset: number;
  limit: number;
}

const TYPE_OF_KIND = new Map(RESOURCE_TYPE_NAMES.map((t) => [RESOURCE_TYPES[t].kind as string, t]));

/** Search over the caller's organization's catalog (docs/product.md §14). Every key may read it all. */
export class SearchService {
  constructor(
    private readonly database: Database,
    private readonly appUrl: string,
  ) {}

  async search(p: Principal, request: SearchRequest): Promise<SearchResult[]> {
    const types = request.resourceType ? [request.resourceType] : RESOURCE_TYPE_NAMES;
    const rows = await searchRepository.search(this.database.db, this.database.dialect, p.organizationId, {
      terms: searchTerms(request.query),
      kinds: types.map((t) => RESOURCE_TYPES[t].kind),
      ownerTeamId: request.teamId,
      tag: request.tag,
      offset: request.offset,
      limit: request.limit,
    });
    const owners = [...new Set(rows.map((r) => r.owner_team_id).filter((id): id is string => id !== null))];
    const names = await searchRepository.teamNames(this.database.db, p.organizationId, owners);
    return rows.map((row) => {
      const resourceType = TYPE_OF_KIND.get(row.kind)!;
      return {
        id: row.id,
        url: this.appUrl + pagePath(RESOURCE_TYPES[resourceType].page, row.id),
        ownerId: row.owner_team_id,
        ownerName: row.owner_team_id === null ? null : (names.get(row.owner_team_id) ?? null),
        name: row.title ?? row.id,
        resourceType,
        description: row.description,
      };
    });
  }
}
