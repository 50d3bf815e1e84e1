import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import { ClassificationSchemeSchema, type ClassificationScheme } from "./shapes.js";

export function classificationSchemeRoutes(app: App, schemes: DocumentService<ClassificationScheme>, config: Config): void {
  documentRoutes(app, { plural: "classification-schemes", noun: "classification scheme", tag: "classifications", schema: ClassificationSchemeSchema, service: schemes, config });
}
