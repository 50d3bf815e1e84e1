import { Type } from "@sinclair/typebox";
import { pageWindow, sendLimitedPage } from "../../platform/http/paging.js";
import { errors, FromQuery, IdParams, PageQuery } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import { sendStored } from "../catalog/document-routes.js";
import { answeredResource, answeredSpan } from "./answer.js";
import type { StoredSpan } from "./repository.js";
import type { UsageService } from "./service.js";
import { MAX_SPANS_PER_REQUEST, TracesAnswerSchema, TracesDeletedSchema, TracesDeleteQuery, TracesListQuery, UsageSummarySchema, UsageViolationsSchema } from "./shapes.js";

const tags = ["usage"];

/** Most recorded uses without an agreement one answer lists. */
const VIOLATIONS_LIMIT = 1000;

/**
 * Stored spans back in OTLP/JSON, in the reference description's shape (`answer.ts`): neighbours
 * with the same resource and scope share one `resourceSpans` and one `scopeSpans` entry.
 */
export function tracesJson(spans: readonly StoredSpan[]): string {
  const groups: string[] = [];
  let current: { resource: string; scope: string; spans: string[] } | undefined;
  const close = () =>
    current && groups.push(`{"resource":${answeredResource(current.resource)},"scopeSpans":[{"scope":${current.scope},"spans":[${current.spans.map(answeredSpan).join(",")}]}]}`);
  for (const s of spans) {
    if (current?.resource === s.resource && current.scope === s.scope) current.spans.push(s.span);
    else {
      close();
      current = { resource: s.resource, scope: s.scope, spans: [s.span] };
    }
  }
  close();
  return `{"resourceSpans":[${groups.join(",")}]}`;
}

export function usageRoutes(app: App, usage: UsageService): void {
  app.post(
    "/api/v1/traces",
    {
      schema: {
        tags,
        summary: "Submit OpenTelemetry traces of data product usage",
        description: `An OTLP/JSON ExportTraceServiceRequest of at most ${MAX_SPANS_PER_REQUEST} spans (docs/lineage.md, "Usage"). A span is a use when it, or its resource, carries \`dataproduct.id\`, \`outputport.id\` (or \`outputport.name\`) or \`access.id\`; the others are rejected and counted in \`partialSuccess\`. A use of a port by a consumer (\`consumer.dataproduct.id\`, \`consumer.team.id\`) without an active access raises AccessViolationDetectedEvent.`,
        body: Type.Unknown({ description: "An OtelTracesRequest (components/schemas/OtelTracesRequest)." }),
        response: { 200: TracesAnswerSchema, ...errors(403, 413, 422) },
      },
    },
    async (request) => usage.post(principalOf(request), request.body),
  );

  app.get(
    "/api/v1/traces",
    {
      schema: {
        tags,
        summary: "Stored usage spans in OTLP/JSON, ordered by when they started",
        querystring: Type.Object({ ...TracesListQuery.properties, ...PageQuery, ...FromQuery }),
        response: { 200: Type.Unknown({ description: "An OtelTracesRequest: the spans with their resource and scope, nanoseconds and integer values as JSON numbers and the kind as its SPAN_KIND_* name." }), ...errors() },
      },
    },
    async (request, reply) => {
      const window = pageWindow(request.query);
      const { scopeName, dataProductId, dataContractId, outputPortId, accessId, since, until } = request.query;
      const filter = { scopeName, dataProductId, dataContractId, outputPortId, accessId, since: since && new Date(since).toISOString(), until: until && new Date(until).toISOString() };
      const { spans, cut } = await usage.list(principalOf(request), filter, window.offset, window.size + 1);
      return sendStored(reply, tracesJson(sendLimitedPage(request, reply, spans, window, cut)));
    },
  );

  app.delete(
    "/api/v1/traces",
    {
      schema: {
        tags,
        summary: "Delete usage spans",
        description: "By `scopeName`, `dataProductId`, `dataContractId` or `spanId`, or, with no filter, every span the caller may delete: an organization principal's all of them, a team principal's those its teams posted.",
        querystring: TracesDeleteQuery,
        response: { 200: TracesDeletedSchema, ...errors(403) },
      },
    },
    async (request) => ({ deletedCount: await usage.delete(principalOf(request), request.query) }),
  );

  app.get(
    "/api/v1/usage/violations",
    {
      schema: {
        tags,
        summary: "Uses without an agreement of a data product's output ports",
        description: `Spans that used a port for a consumer without an active access to it, once per consumer, service, port and day, newest first (at most ${VIOLATIONS_LIMIT}); the counterpart of \`GET /api/v1/lineage/violations\`.`,
        querystring: Type.Object({ dataProductId: Type.String({ minLength: 1, maxLength: 1024, description: "The providing data product." }) }),
        response: { 200: UsageViolationsSchema, ...errors(404) },
      },
    },
    async (request) => usage.violationsOf(principalOf(request), request.query.dataProductId, VIOLATIONS_LIMIT),
  );

  app.get(
    "/api/dataproducts/:id/usage",
    {
      schema: {
        tags,
        summary: "Who used a data product, how often and when last",
        params: IdParams,
        response: { 200: UsageSummarySchema, ...errors(404) },
      },
    },
    async (request) => usage.ofDataProduct(principalOf(request), request.params.id),
  );

  app.get(
    "/api/access/:id/usage",
    {
      schema: {
        tags,
        summary: "Who used an access, how often and when last",
        params: IdParams,
        response: { 200: UsageSummarySchema, ...errors(404) },
      },
    },
    async (request) => usage.ofAccess(principalOf(request), request.params.id),
  );
}
