import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { Config } from "../../platform/config.js";
import { answerPage, pageWindow, sendLimitedPage } from "../../platform/http/paging.js";
import { errors, FromQuery, IdParams, NoContent, PageQuery } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import { badRequest } from "../../platform/errors.js";
import { idSegment, pagePath } from "../../platform/http/page-paths.js";
import { ACCESS_STATUSES, PROVISIONING_TRANSITIONS } from "./lifecycle.js";
import type { ConsumerType } from "./repository.js";
import {
  AccessBodySchema,
  AccessSchema,
  CancelSchema,
  DecisionSchema,
  HistoryEntrySchema,
  ProvisioningReportSchema,
  ProvisioningSchema,
  type Access,
  type Comment,
  type Provisioning,
  type ProvisioningReport,
} from "./shapes.js";
import type { AccessService } from "./service.js";
import { accessJson } from "./documents.js";
import { PrivilegesPlanSchema } from "./privileges.js";
import { ConditionalHeaders, preconditions } from "../catalog/document-routes.js";
import { etagOfJson, tagListMatches } from "../catalog/document-service.js";

type WithId = FastifyRequest<{ Params: { id: string } }>;

export function accessRoutes(app: App, access: AccessService, config: Config): void {
  const htmlUrl = (id: string) => config.appUrl + pagePath("access", id);
  const tags = ["access"];

  app.get(
    "/api/access",
    {
      schema: {
        tags,
        summary: "List access requests",
        description: "In creation order. Teams are matched as the catalog stands now: the provider product's owner, the consuming team or consumer product's owner.",
        querystring: Type.Object({
          ...PageQuery,
          ...FromQuery,
          providerDataProductId: Type.Optional(Type.String({ description: "Only accesses to this data product." })),
          consumerDataProductId: Type.Optional(Type.String({ description: "Only accesses this data product consumes." })),
          dataProductId: Type.Optional(Type.String({ description: "Only accesses with this data product on either side." })),
          providerTeamId: Type.Optional(Type.String({ description: "Only accesses this team provides." })),
          consumerTeamId: Type.Optional(Type.String({ description: "Only accesses this team consumes, itself or through its data products." })),
          consumerType: Type.Optional(Type.String({ description: "team, dataproduct or user, in any letter case." })),
          status: Type.Optional(Type.Union(ACCESS_STATUSES.map((s) => Type.Literal(s)))),
          active: Type.Optional(Type.Union([Type.Literal("true"), Type.Literal("false")])),
        }),
        response: { 200: Type.Array(AccessSchema), ...errors() },
      },
    },
    async (request, reply) => {
      const { p, pageSize, from, consumerType, active, ...filter } = request.query;
      const window = pageWindow({ p, pageSize, from });
      const { accesses, cut } = await access.list(principalOf(request), {
        ...filter,
        consumerType: consumerType === undefined ? undefined : consumerTypeFilter(consumerType),
        active: active === undefined ? undefined : active === "true",
        offset: window.offset,
        limit: window.size + 1,
      });
      return sendLimitedPage(request, reply, accesses, window, cut);
    },
  );

  app.post(
    "/api/access",
    {
      schema: {
        tags,
        summary: "Request access (Steward chooses the id)",
        description: "Creates the request in status requested — or approved at once for an autoApprove port or a consumer of the providing team.",
        body: AccessBodySchema,
        response: { 201: AccessSchema, ...errors(403, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { access: created } = await access.put(principalOf(request), undefined, request.body as Record<string, unknown>);
      return reply.code(201).header("location", `/api/access/${idSegment(created.id!)}`).header("location-html", htmlUrl(created.id!)).send(created);
    },
  );

  app.get(
    "/api/access/:id",
    {
      schema: {
        tags,
        summary: "Read an access request",
        description: "Answers an ETag; with If-None-Match naming it, 304 without a body.",
        params: IdParams,
        response: { 200: AccessSchema, 304: Type.Null({ description: "Not modified" }), ...errors(404) },
      },
    },
    async (request: WithId, reply) => {
      const found = await access.get(principalOf(request), request.params.id);
      const etag = etagOfJson(accessJson(found));
      reply.header("etag", etag);
      const ifNoneMatch = request.headers["if-none-match"];
      if (typeof ifNoneMatch === "string" && tagListMatches(ifNoneMatch, etag)) return reply.code(304).send();
      return found;
    },
  );

  app.put(
    "/api/access/:id",
    {
      schema: {
        tags,
        summary: "Request access with a chosen id, or change an access request",
        description:
          "Answers 200 whether it created or updated, with the new ETag. status, active, provider.teamId, provider.dataContractId and provisioning are read-only: ignored when sent.",
        params: IdParams,
        headers: ConditionalHeaders,
        body: AccessBodySchema,
        response: { 200: AccessSchema, ...errors(403, 409, 412, 413, 415, 422) },
      },
    },
    async (request: WithId, reply) => {
      const { access: saved } = await access.put(principalOf(request), request.params.id, request.body as Record<string, unknown>, preconditions(request));
      reply.header("location-html", htmlUrl(request.params.id));
      reply.header("etag", etagOfJson(accessJson(saved)));
      return saved as Access;
    },
  );

  app.delete(
    "/api/access/:id",
    {
      schema: {
        tags,
        summary: "Delete an access request",
        params: IdParams,
        headers: Type.Pick(ConditionalHeaders, ["if-match"]),
        response: { 204: NoContent, ...errors(403, 404, 412) },
      },
    },
    async (request: WithId, reply) => {
      await access.delete(principalOf(request), request.params.id, { ifMatch: preconditions(request).ifMatch });
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/api/access/:id/history",
    {
      schema: {
        tags,
        summary: "Read an access's history",
        description: "Its events since it was created, oldest first: kind, time, who (principal and a readable principalName) and the comment given.",
        params: IdParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Type.Array(HistoryEntrySchema), ...errors(404) },
      },
    },
    async (request, reply) => answerPage(request, reply, request.query, (offset, limit) => access.history(principalOf(request), request.params.id, offset, limit)),
  );

  app.get(
    "/api/access/:id/privileges",
    {
      schema: {
        tags,
        summary: "Read what an access allows",
        description:
          "The privileges plan: per object of the output port (server, schema, table) the columns granted, masked or withheld, each with its reason — the roles the access names and the columns' classification under the default order public < internal < confidential < restricted, capped by the port's maxClassification custom property. Deterministic: the same access, port and contract give the same bytes.",
        params: IdParams,
        response: { 200: PrivilegesPlanSchema, ...errors(404, 422) },
      },
    },
    async (request: WithId) => access.privileges(principalOf(request), request.params.id),
  );

  // The provider's two decisions on a requested access, with an optional comment.
  const decisions = [
    { decision: "approve", summary: "Approve a requested access", description: "For the provider side. The access activates at once when its start date is absent or reached." },
    { decision: "reject", summary: "Reject a requested access", description: "For the provider side. A rejected access is closed: it never changes again." },
  ] as const;
  for (const { decision, summary, description } of decisions) {
    app.post(
      `/api/access/:id/${decision}`,
      { schema: { tags, summary, description, params: IdParams, body: DecisionSchema, response: { 200: AccessSchema, ...errors(403, 404, 409, 422) } } },
      async (request: WithId) => access[decision](principalOf(request), request.params.id, (request.body as Comment | null)?.comment),
    );
  }

  app.post(
    "/api/access/:id/cancel",
    {
      schema: {
        tags,
        summary: "Cancel an approved access",
        description:
          "For either side. The access stays approved and ends at endDate, or now without one (never later than an end it already has); info.canceledAt is set. " +
          "A request that is not yet approved is withdrawn with DELETE.",
        params: IdParams,
        body: CancelSchema,
        response: { 200: AccessSchema, ...errors(403, 404, 409, 422) },
      },
    },
    async (request: WithId) => access.cancel(principalOf(request), request.params.id, (request.body ?? {}) as { endDate?: string; comment?: string }),
  );

  // One route per report, as the reference product has them, so each carries its own operationId.
  for (const [transition, { status }] of Object.entries(PROVISIONING_TRANSITIONS)) {
    app.post(
      `/api/access/:id/provisioning/${transition}`,
      {
        schema: {
          tags,
          summary: `Report ${transition.replace("-", " ")}`,
          description: `For connectors: records how granting or revoking went, setting provisioning.status to '${status}'. Accepted from any state (the latest report wins); fields left out keep their value.`,
          params: IdParams,
          body: Type.Union([ProvisioningReportSchema, Type.Null()]),
          response: { 200: ProvisioningSchema, ...errors(403, 404, 413, 422) },
        },
      },
      async (request: WithId) => access.report(principalOf(request), request.params.id, transition, (request.body ?? {}) as ProvisioningReport),
    );
  }

  app.get(
    "/api/access/:id/provisioning",
    { schema: { tags, summary: "Read the provisioning record", params: IdParams, response: { 200: ProvisioningSchema, ...errors(404) } } },
    async (request: WithId) => access.getProvisioning(principalOf(request), request.params.id),
  );

  app.put(
    "/api/access/:id/provisioning",
    {
      schema: {
        tags,
        summary: "Replace the provisioning record",
        description: "Emits the event of the new status only when the status changed.",
        params: IdParams,
        body: ProvisioningSchema,
        response: { 200: ProvisioningSchema, ...errors(403, 404, 413, 422) },
      },
    },
    async (request: WithId) => access.putProvisioning(principalOf(request), request.params.id, request.body as Provisioning),
  );
}

/** The reference product spells it `dataproduct`; any letter case is accepted. */
function consumerTypeFilter(text: string): ConsumerType {
  const types: Record<string, ConsumerType> = { team: "team", dataproduct: "dataProduct", user: "user" };
  const type = types[text.toLowerCase()];
  if (type === undefined) throw badRequest(`consumerType '${text}' is not one of team, dataproduct or user.`, [{ field: "consumerType", message: "must be team, dataproduct or user" }]);
  return type;
}
