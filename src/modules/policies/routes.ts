import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../shared/document-service.js";
import { documentRoutes } from "../shared/document-routes.js";
import { PolicySchema, type Policy } from "./shapes.js";

export function policyRoutes(app: App, policies: DocumentService<Policy>, config: Config): void {
  documentRoutes(app, { plural: "policies", noun: "policy", tag: "policies", schema: PolicySchema, service: policies, config });
}
