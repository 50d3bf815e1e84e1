import { Type } from "@sinclair/typebox";
import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../shared/document-service.js";
import { documentRoutes } from "../shared/document-routes.js";
import { DataProductSchema, type DataProduct } from "./schemas.js";

export function dataProductRoutes(app: App, products: DocumentService<DataProduct>, config: Config): void {
  documentRoutes(app, {
    plural: "dataproducts",
    noun: "data product",
    tag: "dataproducts",
    schema: DataProductSchema,
    service: products,
    config,
    filters: {
      teamId: Type.Optional(Type.String({ description: "Only data products owned by this team." })),
      status: Type.Optional(Type.String({ description: "Only data products with this info.status." })),
    },
    toFilter: (q) => ({ ownerTeamId: q.teamId, status: q.status }),
  });
}
