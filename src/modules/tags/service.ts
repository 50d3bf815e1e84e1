import type { CatalogKind } from "../catalog/document-service.js";
import { teamOwned } from "../catalog/owned-documents.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import type { Tag } from "./shapes.js";
import { conflict } from "../../platform/errors.js";
import { tagRepository } from "./repository.js";
import { tagIdViolations } from "./tag-ids.js";
import { emitChangeEvent } from "../catalog/change-events.js";

const ownerOf = (tag: Tag) => tag.owner ?? tag.info?.owner;

const owned = teamOwned<Tag>({
  what: "tag",
  ownerField: "owner",
  ownerOf,
  titleOf: (t) => t.id,
  searchOf: (t) => [t.info?.description],
});

export const tagKind: CatalogKind<Tag> = {
  kind: "tag",
  label: "Tag",
  ...owned,
  // Clients may name the owner in either place; answers always carry the top-level one.
  prepare: (tag) => (tag.owner === undefined && tag.info?.owner !== undefined ? { ...tag, owner: tag.info.owner } : tag),
  async validate(ex, organizationId, tag) {
    const idViolations = tagIdViolations(tag.id).map((message) => ({ field: "id", message }));
    if (ownerOf(tag) === undefined) return [...idViolations, { field: "owner", message: "is required (or info.owner)" }];
    const violations = [...idViolations, ...(await owned.validate!(ex, organizationId, tag))];
    if (tag.info?.owner !== undefined && tag.owner !== tag.info.owner) {
      violations.push({ field: "info.owner", message: `must equal owner ('${tag.owner}') when both are given` });
    }
    // Tags differing only in case would be told apart by no one reading them.
    const twin = await resourceRepository.findOtherCasing(ex, organizationId, "tag", tag.id);
    if (twin !== undefined) violations.push({ field: "id", message: `the tag '${twin}' exists already; tag ids differing only in case are not allowed` });
    return violations;
  },
  // A tag in use stays: deleting it would leave assets assigned a tag that no longer exists
  // (docs/security.md, "Tags"). Remove the assignments first.
  async checkDeletable(ex, organizationId, tag) {
    const assets = await tagRepository.assetsAssigning(ex, organizationId, tag.id, 11);
    if (assets.length === 0) return;
    const named = assets.slice(0, 10).map((a) => `'${a}'`).join(", ") + (assets.length > 10 ? " and more" : "");
    throw conflict(`Tag '${tag.id}' is assigned to assets ${named}; remove those assignments first (rule: a tag in use is not deleted).`);
  },
  emitChange: emitChangeEvent("Tag"),
};
