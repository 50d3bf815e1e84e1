import type { DocumentDefinition } from "../shared/document-service.js";
import { teamOwned } from "../shared/owned-documents.js";
import type { Definition } from "./shapes.js";

export const definitionDefinition: DocumentDefinition<Definition> = {
  kind: "definition",
  label: "Definition",
  ...teamOwned<Definition>({
    what: "definition",
    ownerField: "owner",
    ownerOf: (d) => d.owner,
    titleOf: (d) => d.title,
    searchOf: (d) => [d.title, d.description],
  }),
  emitChange(emit, id, before, after) {
    emit(before === undefined ? "DefinitionCreatedEvent" : after === undefined ? "DefinitionDeletedEvent" : "DefinitionUpdatedEvent", id);
  },
};
