import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { ContractDocument } from "../../../contract-formats/index.js";
import { answerPage } from "../../../platform/http/paging.js";
import { errors, IdParams, PageQuery } from "../../../platform/http/shapes.js";
import { principalOf, type App } from "../../../platform/http/types.js";
import type { ContractVersionService } from "./service.js";
import { ChangeReportSchema, ChangesQuery, ContractVersionSummarySchema, ProposeQuery, VersionParams } from "./shapes.js";
import { DataContractSchema } from "../shapes.js";
import { sendStored } from "../../catalog/document-routes.js";

/** A contract's versions and the differences between them (docs/product.md §9). */
export function contractVersionRoutes(app: App, versions: ContractVersionService): void {
  app.get(
    "/api/datacontracts/:id/versions",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "List a data contract's versions",
        description: "Every document the contract has had, the current one included, newest first.",
        params: IdParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Type.Array(ContractVersionSummarySchema), ...errors(404) },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string }; Querystring: { p?: string; pageSize?: string } }>, reply) =>
      answerPage(request, reply, request.query, (offset, limit) => versions.list(principalOf(request), request.params.id, offset, limit)),
  );

  app.get(
    "/api/datacontracts/:id/versions/:n",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "Read one version of a data contract",
        description: "The document exactly as it was stored then; who stored it, and when, is in the list of versions.",
        params: VersionParams,
        response: { 200: DataContractSchema, ...errors(404) },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string; n: string } }>, reply) =>
      sendStored(reply, await versions.get(principalOf(request), request.params.id, Number(request.params.n))),
  );

  app.get(
    "/api/datacontracts/:id/changes",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "Compare two versions of a data contract",
        description: "The differences between versions `from` and `to` on their normalized models, each breaking or not, with the approved accesses a breaking change would affect.",
        params: IdParams,
        querystring: ChangesQuery,
        response: { 200: ChangeReportSchema, ...errors(404) },
      },
    },
    async (request: FastifyRequest<{ Params: { id: string }; Querystring: { from?: string; to?: string } }>) => {
      const { from, to } = request.query;
      return versions.changesBetween(principalOf(request), request.params.id, from === undefined ? undefined : Number(from), to === undefined ? undefined : Number(to));
    },
  );

  app.post(
    "/api/datacontracts/:id/changes",
    {
      schema: {
        tags: ["datacontracts"],
        summary: "Compare a proposed document with a data contract",
        description:
          "What storing the proposed document would change, and whom it would break. Nothing is stored. With `notify=true`, a proposal that breaks approved accesses tells their consumers (docs/versions.md).",
        params: IdParams,
        querystring: ProposeQuery,
        body: Type.Object({}, { additionalProperties: true, description: "The proposed data contract, JSON or YAML." }),
        response: { 200: ChangeReportSchema, ...errors(403, 404, 413, 415, 422) },
      },
      config: { yamlBody: true },
    },
    async (request: FastifyRequest<{ Params: { id: string }; Querystring: { notify?: string } }>, reply) => {
      if (request.query.notify !== "true") return versions.changesProposed(principalOf(request), request.params.id, request.body as ContractDocument);
      const told = await versions.proposeToConsumers(principalOf(request), request.params.id, request.body as ContractDocument);
      // The answer's body keeps the comparison's shape; whom the proposal reached goes in headers.
      reply.header("steward-notified", String(told.notified));
      if (told.earlier !== undefined) reply.header("steward-notified-earlier", told.earlier);
      return told.report;
    },
  );
}
