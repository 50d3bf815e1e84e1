import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import { contractToOdcs, parseContractAhead } from "../../contract-formats/models.js";
import { liftTo32, ODCS_32_VERSION } from "../../contract-formats/odcs-lift.js";
import type { Config } from "../../platform/config.js";
import { errors, IdParams } from "../../platform/http/shapes.js";
import { yamlText } from "../../platform/http/yaml-body.js";
import { principalOf, type App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import { ownedFilters } from "../catalog/owned-documents.js";
import { ContractModelsSchema, DataContractSchema, type DataContract } from "./shapes.js";
import { contractModels, contractViewOf, contractYamlText } from "./service.js";
import type { Parsing } from "../../schema-formats/off-thread.js";
import type { Database } from "../../platform/database/index.js";
import { ContractViewSchema } from "../../contract-view/shapes.js";
import { PutContractQuery } from "./versions/shapes.js";

const FormatQuery = {
  format: Type.Optional(
    Type.Union([Type.Literal("odcs")], {
      description: "odcs: the contract converted to ODCS, whatever format it was stored in: v3.1.0, or as stored when it is ODCS v3.1.0 or v3.2.0.",
    }),
  ),
  odcsVersion: Type.Optional(
    Type.Union([Type.Literal("v3.2.0")], { description: "With format=odcs: the ODCS edition to convert to; v3.2.0 brings any contract up to 3.2.0." }),
  ),
};

/** The stored contract, or its conversion; a 0.9 contract's big schemas are parsed off the event loop first. */
async function asRequested(parsing: Parsing, contract: DataContract, query: Record<string, string | undefined>) {
  if (query.format !== "odcs") return contract;
  await parseContractAhead(contract, parsing);
  const odcs = contractToOdcs(contract, parsing.limits);
  return query.odcsVersion === ODCS_32_VERSION ? liftTo32(odcs) : odcs;
}

export function dataContractRoutes(app: App, contracts: DocumentService<DataContract>, config: Config, database: Database, parsing: Parsing): void {
  documentRoutes(app, {
    plural: "datacontracts",
    noun: "data contract",
    tag: "datacontracts",
    schema: DataContractSchema,
    service: contracts,
    config,
    ...ownedFilters("ODCS `domain` or the Data Contract Specification's `info.domain`", { byName: true }),
    readQuery: FormatQuery,
    writeQuery: PutContractQuery.properties,
    present: (contract, query) => asRequested(parsing, contract, query),
  });

  app.get(
    "/api/datacontracts/:id/datacontract.yaml",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "Read a data contract as YAML",
        description: "The stored document as YAML: the text as it was written when it was sent as YAML (comments, order and quoting kept), generated YAML when it was sent as JSON; with format=odcs converted to ODCS v3.1.0.",
        params: IdParams,
        querystring: Type.Object(FormatQuery),
        response: { 200: Type.String({ description: "YAML" }), ...errors(404) },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string }; Querystring: { format?: string; odcsVersion?: string } }>, reply) => {
      // As written when it was sent as YAML (comments and order kept); generated otherwise, and for a conversion.
      const { contract, text: written } = await contractYamlText(contracts, database.db, principalOf(request), request.params.id);
      const text = written !== null && request.query.format === undefined ? written : await yamlText(await asRequested(parsing, contract, request.query), config.limits.schemaParseTimeoutMs, parsing.workers);
      return reply.type("application/yaml; charset=utf-8").send(text);
    },
  );

  app.get(
    "/api/datacontracts/:id/models",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "Read a data contract's normalized models",
        description:
          "The contract's models in one normalized form, whatever its format: ODCS schema objects, Data Contract Specification models, or every typed schema parsed.",
        params: IdParams,
        response: { 200: ContractModelsSchema, ...errors(404) },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string } }>) => contractModels(contracts, parsing, principalOf(request), request.params.id),
  );

  app.get(
    "/api/datacontracts/:id/view",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "Read a data contract as people read it",
        description:
          "Everything the contract promises, whatever its format: models with their types, keys, classifications and quality rules in words; servers, service levels, roles, support, price, terms and context (docs/formats.md).",
        params: IdParams,
        response: { 200: ContractViewSchema, ...errors(404, 422) },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string } }>) => contractViewOf(contracts, parsing, principalOf(request), request.params.id),
  );
}
