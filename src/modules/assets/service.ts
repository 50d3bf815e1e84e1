import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { invalid } from "../../platform/errors.js";
import type { EventLog } from "../../events/log.js";
import { DocumentService, type DocumentDefinition } from "../shared/document-service.js";
import { teamOwned } from "../shared/owned-documents.js";
import { resourceRepository } from "../shared/resource-repository.js";
import type { Asset } from "./shapes.js";
import { withMembers } from "../../platform/objects.js";

export const assetDefinition: DocumentDefinition<Asset> = {
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
  emitChange(emit, id, before, after) {
    emit(before === undefined ? "AssetCreatedEvent" : after === undefined ? "AssetDeletedEvent" : "AssetUpdatedEvent", id);
  },
};

/** Assets are documents, plus the tags people assign to them beside what the synchronizer sends. */
export class AssetService extends DocumentService<Asset> {
  constructor(database: Database, events: EventLog, clock: Clock) {
    super(assetDefinition, database, events, clock);
  }

  async assignedTags(p: Principal, id: string): Promise<string[]> {
    return (await this.get(p, id)).assignedTags ?? [];
  }

  /** Adds (`assign`) or removes a tag; answers the asset's assigned tags afterwards. */
  async changeAssignedTag(p: Principal, id: string, tagId: string, assign: boolean): Promise<string[]> {
    return this.events.transaction(p, async (trx, emit) => {
      const existing = await resourceRepository.get<Asset>(trx, p.organizationId, "asset", id, { lock: this.database.dialect });
      // The reference product answers 422 here: the asset named in the path must exist.
      if (!existing) throw invalid(`No asset '${id}' exists in this organization.`, [{ field: "id", message: `no asset '${id}'` }]);
      const before = existing.doc;
      this.definition.authorize(p, id, before, before);
      const current = before.assignedTags ?? [];
      if (assign === current.includes(tagId)) return current;
      const tags = assign ? [...current, tagId] : current.filter((t) => t !== tagId);
      const after: Asset = withMembers(before, { assignedTags: tags });
      const columns = withMembers(this.definition.columns(after), { json: JSON.stringify(after) });
      await resourceRepository.update(trx, p.organizationId, "asset", id, columns, this.clock.now().toISOString());
      this.definition.emitChange(emit, id, before, after);
      return tags;
    });
  }
}
