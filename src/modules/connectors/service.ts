import { policy } from "../../policies/index.js";
import { searchText, type CatalogKind } from "../catalog/document-service.js";
import type { Connector } from "./shapes.js";

/** Connectors keep their feed position in Steward. They are infrastructure, not catalog: no events. */
export const connectorKind: CatalogKind<Connector> = {
  kind: "connector",
  label: "Connector",
  columns: (connector) => ({
    title: connector.info.type,
    ownerTeamId: null,
    status: null,
    searchText: searchText(connector.id, connector.info.type, connector.info.description),
  }),
  authorize: (p) => policy.manageConnectors(p),
  authorizeRead: (p) => policy.readConnectors(p),
  emitChange() {},
};
