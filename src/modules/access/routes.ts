import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import type { Config } from "../../platform/config.js";
import { pageWindow, sendPage } from "../../platform/http/paging.js";
import { errors, IdParams, NoContent, PageQuery } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import { PROVISIONING_TRANSITIONS, type AccessAction } from "./lifecycle.js";
import { AccessSchema, CancelSchema, ProvisioningReportSchema, ProvisioningSchema, type Access, type Provisioning } from "./shapes.js";
import type { AccessService } from "./service.js";

type WithId = FastifyRequest<{ Params: { id: string } }>;

export function accessRoutes(app: App, access: AccessService, config: Config): void {
  const htmlUrl = (id: string) => `${config.appUrl}/access/${encodeURIComponent(id)}`;
  const tags = ["access"];

  app.get(
    "/api/access",
    {
      schema: {
        tags,
        summary: "List access requests",
        querystring: Type.Object({
          ...PageQuery,
          providerDataProductId: Type.Optional(Type.String()),
          consumerDataProductId: Type.Optional(Type.String()),
          consumerType: Type.Optional(Type.Union([Type.Literal("dataProduct"), Type.Literal("team"), Type.Literal("user")])),
          status: Type.Optional(Type.Union(["requested", "approved", "rejected", "canceled"].map((s) => Type.Literal(s)))),
        }),
        response: { 200: Type.Array(AccessSchema), ...errors() },
      },
    },
    async (request, reply) => {
      const { p, pageSize, ...filter } = request.query;
      const { page, size, offset } = pageWindow({ p, pageSize });
      const rows = await access.list(principalOf(request), { ...filter, offset, limit: size + 1 });
      return sendPage(request, reply, rows, size, page);
    },
  );

  app.post(
    "/api/access",
    {
      schema: {
        tags,
        summary: "Request access (Steward chooses the id)",
        description: "Creates the request in status requested — or approved at once for an autoApprove port or a consumer of the providing team.",
        body: AccessSchema,
        response: { 201: AccessSchema, ...errors(403, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { access: created } = await access.put(principalOf(request), undefined, request.body as Record<string, unknown>);
      return reply.code(201).header("location", `/api/access/${encodeURIComponent(created.id!)}`).header("location-html", htmlUrl(created.id!)).send(created);
    },
  );

  app.get(
    "/api/access/:id",
    { schema: { tags, summary: "Read an access request", params: IdParams, response: { 200: AccessSchema, ...errors(404) } } },
    async (request: WithId) => access.get(principalOf(request), request.params.id),
  );

  app.put(
    "/api/access/:id",
    {
      schema: {
        tags,
        summary: "Request access with a chosen id, or change an access request",
        description: "Answers 200 whether it created or updated. status, active, provider.teamId, provider.dataContractId and provisioning are read-only.",
        params: IdParams,
        body: AccessSchema,
        response: { 200: AccessSchema, ...errors(403, 413, 415, 422) },
      },
    },
    async (request: WithId, reply) => {
      const { access: saved } = await access.put(principalOf(request), request.params.id, request.body as Record<string, unknown>);
      reply.header("location-html", htmlUrl(request.params.id));
      return saved as Access;
    },
  );

  app.delete(
    "/api/access/:id",
    { schema: { tags, summary: "Delete an access request", params: IdParams, response: { 204: NoContent, ...errors(403, 404) } } },
    async (request: WithId, reply) => {
      await access.delete(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  const actions: Array<[AccessAction, string]> = [
    ["approve", "Approve a requested access (activates it when its start date has come)"],
    ["reject", "Reject a requested access"],
    ["cancel", "Cancel an access: it ends now, or at the endDate given"],
  ];
  for (const [action, summary] of actions) {
    app.post(
      `/api/access/:id/${action}`,
      {
        schema: {
          tags,
          summary,
          params: IdParams,
          ...(action === "cancel" ? { body: CancelSchema } : {}),
          response: { 200: AccessSchema, ...errors(403, 404, 409, 422) },
        },
      },
      async (request: WithId) => access.act(principalOf(request), request.params.id, action, (request.body ?? {}) as { endDate?: string }),
    );
  }

  app.post(
    "/api/access/:id/provisioning/:transition",
    {
      schema: {
        tags,
        summary: "Report provisioning progress",
        description: "For connectors: records how granting or revoking went. Fields left out keep their value.",
        params: Type.Object({ id: IdParams.properties.id, transition: Type.Union(Object.keys(PROVISIONING_TRANSITIONS).map((t) => Type.Literal(t))) }),
        body: Type.Union([ProvisioningReportSchema, Type.Null()]),
        response: { 200: ProvisioningSchema, ...errors(403, 404, 422) },
      },
    },
    async (request) => access.report(principalOf(request), request.params.id, request.params.transition, request.body ?? {}),
  );

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
        response: { 200: ProvisioningSchema, ...errors(403, 404, 422) },
      },
    },
    async (request: WithId) => access.putProvisioning(principalOf(request), request.params.id, request.body as Provisioning),
  );
}
