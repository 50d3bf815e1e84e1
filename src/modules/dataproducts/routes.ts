import { Type } from "@sinclair/typebox";
import type { Config } from "../../platform/config.js";
import { SafeText } from "../../platform/http/shapes.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import { ownedFilters } from "../catalog/owned-documents.js";
import { DataProductSchema, type DataProduct } from "./shapes.js";

const owned = ownedFilters("ODPS `domain` or the Data Product Specification's `info.domain`");

export function dataProductRoutes(app: App, products: DocumentService<DataProduct>, config: Config): void {
  documentRoutes(app, {
    plural: "dataproducts",
    noun: "data product",
    tag: "dataproducts",
    schema: DataProductSchema,
    service: products,
    config,
    filters: {
      ...owned.filters,
      archetype: Type.Optional(
        SafeText({
          maxLength: 200,
          description:
            "Only those of this archetype (exact match), e.g. source-aligned or consumer-aligned: the Data Product Specification's `info.archetype`, an ODPS custom property `archetype` (or `type`).",
        }),
      ),
    },
    toFilter: (q) => ({ ...owned.toFilter!(q), archetype: q.archetype }),
  });
}
