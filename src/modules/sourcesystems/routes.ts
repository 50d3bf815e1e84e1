import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../shared/document-service.js";
import { documentRoutes } from "../shared/document-routes.js";
import { ownerFilter } from "../shared/owned-documents.js";
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
