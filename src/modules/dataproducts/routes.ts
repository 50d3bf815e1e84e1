import { Type } from "@sinclair/typebox";
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
    filters: {
      ...ownedFilters.filters,
      tag: Type.Optional(Type.String({ maxLength: 200, description: "Only those whose tags include this tag (exact match)." })),
      sort: Type.Optional(Type.Union([Type.Literal("name")], { description: "`name`: by title, letter case ignored; creation order when absent." })),
    },
    toFilter: (q) => ({ ...ownedFilters.toFilter!(q), tag: q.tag, ...(q.sort === "name" ? { sort: "title" as const } : {}) }),
  });
}
