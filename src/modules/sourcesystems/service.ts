import type { CatalogKind } from "../catalog/document-service.js";
import { teamOwned } from "../catalog/owned-documents.js";
import type { SourceSystem } from "./shapes.js";
import { emitChangeEvent } from "../catalog/change-events.js";

export const sourceSystemKind: CatalogKind<SourceSystem> = {
  kind: "sourcesystem",
  label: "Source system",
  ...teamOwned<SourceSystem>({
    what: "source system",
    ownerField: "owner",
    ownerOf: (s) => s.owner,
    titleOf: (s) => s.name,
    searchOf: (s) => [s.name, s.description],
  }),
  emitChange: emitChangeEvent("SourceSystem"),
};
