import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import { ownerFilter } from "../catalog/owned-documents.js";
import { TagId, TagSchema, type Tag } from "./shapes.js";
import { normalizeTagId } from "./tag-ids.js";

export function tagRoutes(app: App, tags: DocumentService<Tag>, config: Config): void {
  documentRoutes(app, { plural: "tags", noun: "tag", tag: "tags", schema: TagSchema, service: tags, config, idSchema: TagId, normalizeId: normalizeTagId, ...ownerFilter });
}
