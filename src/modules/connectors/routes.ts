import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import { ConnectorSchema, type Connector } from "./shapes.js";

export function connectorRoutes(app: App, connectors: DocumentService<Connector>, config: Config): void {
  documentRoutes(app, { plural: "connectors", noun: "connector", tag: "connectors", schema: ConnectorSchema, service: connectors, config });
}
