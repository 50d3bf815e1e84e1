import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import { CertificationSchema, type Certification } from "./shapes.js";

export function certificationRoutes(app: App, certifications: DocumentService<Certification>, config: Config): void {
  documentRoutes(app, { plural: "certifications", noun: "certification", tag: "certifications", schema: CertificationSchema, service: certifications, config });
}
