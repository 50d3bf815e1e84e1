import type { CatalogKind } from "../catalog/document-service.js";
import { teamOwned } from "../catalog/owned-documents.js";
import type { Definition } from "./shapes.js";
import { emitChangeEvent } from "../catalog/change-events.js";

export const definitionKind: CatalogKind<Definition> = {
  kind: "definition",
  label: "Definition",
  ...teamOwned<Definition>({
    what: "definition",
    ownerField: "owner",
    ownerOf: (d) => d.owner,
    titleOf: (d) => d.title,
    searchOf: (d) => [d.title, d.description],
  }),
  emitChange: emitChangeEvent("Definition"),
};
