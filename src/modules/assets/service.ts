import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { invalid } from "../../platform/errors.js";
import type { EventLog } from "../../events/log.js";
import { checkDocumentSize, type DocumentLimits } from "../catalog/document-limits.js";
import { checkPreconditions, DocumentService, etagOfJson, type CatalogKind, type Preconditions } from "../catalog/document-service.js";
import { teamOwned } from "../catalog/owned-documents.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import type { Asset } from "./shapes.js";
import { withMembers } from "../../platform/objects.js";
import { emitChangeEvent } from "../catalog/change-events.js";

export const assetKind: CatalogKind<Asset> = {
  kind: "asset",
  label: "Asset",
  ...teamOwned<Asset>({
    what: "asset",
    ownerField: "info.owner",
    ownerOf: (a) => a.info?.owner,
    titleOf: (a) => a.info?.name,
    statusOf: (a) => a.info?.status,
    searchOf: (a) => [a.info?.name, a.info?.qualifiedName, a.info?.description],
  }),
  // Assigned tags are managed through /assigned-tags; a synchronizer's PUT neither sets nor drops them.
  prepare(asset, before) {
    // Nothing to take out or keep: the same object, so its JSON text is stored as it came.
    if (asset.assignedTags === undefined && before?.assignedTags === undefined) return asset;
    const { assignedTags: _ignored, ...rest } = asset;
    return before?.assignedTags === undefined ? (rest as Asset) : (withMembers(rest, { assignedTags: before.assignedTags }) as Asset);
  },
  emitChange: emitChangeEvent("Asset"),
};

export interface AssetLimits {
  /** Tags one asset may have assigned (MAX_ASSIGNED_TAGS). */
  maxAssignedTags: number;
}

/** Assets are documents, plus the tags people assign to them beside what the synchronizer sends. */
export class AssetService extends DocumentService<Asset> {
  constructor(
    database: Database,
    events: EventLog,
    clock: Clock,
    documentLimits: DocumentLimits,
    private readonly limits: AssetLimits = { maxAssignedTags: 1000 },
  ) {
    super(assetKind, database, events, clock, documentLimits);
  }

  async assignedTags(p: Principal, id: string): Promise<string[]> {
    return (await this.get(p, id)).assignedTags ?? [];
  }

  /**
   * Adds (`assign`) or removes a tag; answers the asset's assigned tags afterwards. A change of the
   * asset like any other: `If-Match` names the asset's ETag, and the asset stays within
   * DOCUMENT_LIMIT_BYTES.
   */
  /** The asset's assigned tags afterwards, and its ETag for the next conditional change. */
  async changeAssignedTag(
    p: Principal,
    id: string,
    tagId: string,
    assign: boolean,
    conditions: Pick<Preconditions, "ifMatch"> = {},
  ): Promise<{ tags: string[]; etag: string }> {
    return this.events.transaction(p, async (trx, emit) => {
      const existing = await resourceRepository.get<Asset>(trx, p.organizationId, "asset", id, { lock: this.database.dialect });
      // The reference product answers 422 here: the asset named in the path must exist.
      if (!existing) throw invalid(`No asset '${id}' exists in this organization.`, [{ field: "id", message: `no asset '${id}'` }]);
      checkPreconditions(this.catalogKind.label, id, existing.json, conditions);
      const before = existing.doc;
      this.catalogKind.authorize(p, id, before, before);
      const current = before.assignedTags ?? [];
      if (assign === current.includes(tagId)) return { tags: current, etag: etagOfJson(existing.json) };
      // The tag's row is locked, so a concurrent deletion of the tag waits for this assignment and then sees it (409).
      if (assign && !(await resourceRepository.get(trx, p.organizationId, "tag", tagId, { lock: this.database.dialect }))) {
        throw invalid(`No tag '${tagId}' exists in this organization; create it first (rule: an asset's assigned tag must exist).`, [
          { field: "tagId", message: `no tag '${tagId}' exists (rule: an asset's assigned tag must exist)` },
        ]);
      }
      if (assign && current.length >= this.limits.maxAssignedTags) {
        throw invalid(`Asset '${id}' has ${current.length} assigned tags, the limit of ${this.limits.maxAssignedTags} for one asset (MAX_ASSIGNED_TAGS); remove one first.`);
      }
      const tags = assign ? [...current, tagId] : current.filter((t) => t !== tagId);
      const after: Asset = withMembers(before, { assignedTags: tags });
      const json = JSON.stringify(after);
      checkDocumentSize(this.catalogKind.label, json, this.documentLimits);
      await this.store(trx, emit, p, id, before, { doc: after, json });
      return { tags, etag: etagOfJson(json) };
    });
  }
}
