import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import { ownerFilter } from "../catalog/owned-documents.js";
import { SourceSystemSchema, type SourceSystem } from "./shapes.js";

export function sourceSystemRoutes(app: App, sourceSystems: DocumentService<SourceSystem>, config: Config): void {
  documentRoutes(app, {
    plural: "sourcesystems",
    noun: "source system",
    tag: "sourcesystems",
    schema: SourceSystemSchema,
    service: sourceSystems,
    config,
    ...ownerFilter,
  });
}
