import type { FastifyRequest } from "fastify";
import type { Config } from "../../platform/config.js";
import { errors, IdParams } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import type { DocumentService } from "../shared/document-service.js";
import { documentRoutes } from "../shared/document-routes.js";
import { ownedFilters } from "../shared/owned-documents.js";
import { ContractModelsSchema, DataContractSchema, type DataContract } from "./shapes.js";
import { contractModels } from "./service.js";

export function dataContractRoutes(app: App, contracts: DocumentService<DataContract>, config: Config): void {
  documentRoutes(app, {
    plural: "datacontracts",
    noun: "data contract",
    tag: "datacontracts",
    schema: DataContractSchema,
    service: contracts,
    config,
    ...ownedFilters,
  });

  app.get(
    "/api/datacontracts/:id/models",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "Read a data contract's normalized models",
        description: "Every schema of the contract parsed into one model list: models with fields, logical and physical types, required flags and tests.",
        params: IdParams,
        response: { 200: ContractModelsSchema, ...errors(404) },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string } }>) => contractModels(contracts, principalOf(request), request.params.id),
  );
}
