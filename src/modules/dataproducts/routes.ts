import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../shared/document-service.js";
import { documentRoutes } from "../shared/document-routes.js";
import { ownedFilters } from "../shared/owned-documents.js";
import { DataProductSchema, type DataProduct } from "./shapes.js";

export function dataProductRoutes(app: App, products: DocumentService<DataProduct>, config: Config): void {
  documentRoutes(app, {
    plural: "dataproducts",
    noun: "data product",
    tag: "dataproducts",
    schema: DataProductSchema,
    service: products,
    config,
    ...ownedFilters,
  });
}
