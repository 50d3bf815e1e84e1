import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import { ownerFilter } from "../catalog/owned-documents.js";
import { DefinitionSchema, type Definition } from "./shapes.js";

export function definitionRoutes(app: App, definitions: DocumentService<Definition>, config: Config): void {
  documentRoutes(app, {
    plural: "definitions",
    noun: "definition",
    tag: "definitions",
    schema: DefinitionSchema,
    service: definitions,
    config,
    ...ownerFilter,
  });
}
