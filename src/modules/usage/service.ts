import type { ValidateFunction } from "ajv";
import type { Principal } from "../../platform/auth.js";
import { badRequest, invalid, notFound, type FieldViolation } from "../../platform/errors.js";
import { createAjv, standardViolations } from "../../platform/validation.js";
import { policy } from "../../policies/index.js";
import { lineageRepository } from "../lineage/repository.js";
import { ReadRecordsService, type ReadRecordsArgs } from "../lineage/read-records.js";
import { raiseWithoutAgreement, type SeenRead } from "../lineage/violations.js";
import { spanCount, spanUses, type SpanUse } from "./otlp.js";
import { usageRepository, type NewUsageSpan, type UsageDeleteFilter, type UsageSpanFilter, type UsageViolationRow } from "./repository.js";
import { CatalogLookups, resolveUse, UNKNOWN_SERVICE, type ResolvedUse } from "./resolve.js";
import { MAX_SPAN_BYTES, MAX_SPANS_PER_REQUEST, TracesRequestSchema, type TracesRequest, type UsageSummary, type UsageViolation } from "./shapes.js";

/** Most consumers a summary lists. */
const SUMMARY_CONSUMERS = 1000;
/** Most rejected spans whose reasons an answer spells out. */
const REASONS_SHOWN = 10;

const validateTraces: ValidateFunction = createAjv().compile(TracesRequestSchema);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The OTLP answer: empty when every span was taken, else how many were not and why. */
export interface TracesAnswer {
  partialSuccess?: { rejectedSpans: number; errorMessage: string };
}

/**
 * The body as an OTLP/JSON trace export request (shapes.ts): a 400 when it is not one at all or
 * carries too many spans, a 422 naming each member that breaks the protocol's shape.
 */
export function readTracesRequest(body: unknown): { request: TracesRequest; uses: SpanUse[] } {
  if (!isRecord(body)) throw badRequest("The body must be an OTLP/JSON ExportTraceServiceRequest: a JSON object with resourceSpans.");
  if (!validateTraces(body)) throw invalid("The body is not a valid OTLP/JSON ExportTraceServiceRequest.", standardViolations(validateTraces.errors));
  const request = body as unknown as TracesRequest;
  const count = spanCount(request);
  if (count > MAX_SPANS_PER_REQUEST) {
    throw badRequest(`One request may carry at most ${MAX_SPANS_PER_REQUEST} spans; this one has ${count}. Send them in several requests.`);
  }
  const uses = spanUses(request);
  const violations: FieldViolation[] = [];
  for (const use of uses) {
    const bytes = Buffer.byteLength(JSON.stringify([use.resource, use.scope, use.span]));
    if (bytes > MAX_SPAN_BYTES) violations.push({ field: use.path, message: `the span takes ${bytes} bytes with its resource and scope; at most ${MAX_SPAN_BYTES} are kept per span` });
  }
  if (violations.length > 0) throw invalid("Some spans are too large to keep.", violations);
  return { request, uses };
}

/** The team a span is kept for (who may delete it): the side the principal acts for, else its first team. */
function posterTeam(p: Principal, use: ResolvedUse): string | null {
  if (p.scope === "organization") return null;
  for (const team of [use.consumer.teamId, use.providerTeamId]) if (team !== null && p.teamIds.includes(team)) return team;
  return p.teamIds[0] ?? null;
}

/** The stored row of a span's use. */
function spanRow(p: Principal, use: SpanUse, resolved: ResolvedUse, now: Date): NewUsageSpan {
  return {
    organization_id: p.organizationId,
    trace_id: use.traceId,
    span_id: use.spanId,
    scope_name: use.scopeName,
    service_name: use.serviceName,
    data_product_id: resolved.dataProductId,
    output_port_id: resolved.outputPortId,
    data_contract_id: resolved.dataContractId,
    access_id: resolved.accessId,
    consumer_type: resolved.consumer.type,
    consumer_id: resolved.consumer.id,
    start_time: use.start,
    end_time: use.end,
    team_id: posterTeam(p, resolved),
    resource: JSON.stringify(use.resource),
    scope: JSON.stringify(use.scope),
    span: JSON.stringify(use.span),
    created_at: now.toISOString(),
  };
}

/**
 * A use of a port by a named consumer, as a read for lineage's one path of reads without an
 * agreement (`../lineage/violations.ts`), with its record; a use of no port, or by no named consumer, is none.
 */
function readOf(organizationId: string, use: SpanUse, resolved: ResolvedUse, now: Date): Array<SeenRead & { row: UsageViolationRow }> {
  const { consumer, outputPortId } = resolved;
  if (outputPortId === null || consumer.type === "service") return [];
  const serviceName = use.serviceName ?? UNKNOWN_SERVICE;
  return [
    {
      port: { dataProductId: resolved.dataProductId, outputPortId, ownerTeamId: resolved.providerTeamId },
      consumer: { dataProductId: consumer.dataProductId, teamId: consumer.teamId },
      seen: { span: { traceId: use.traceId, spanId: use.spanId, serviceName } },
      row: {
        organization_id: organizationId,
        consumer_type: consumer.type,
        consumer_id: consumer.id,
        consumer_team_id: consumer.teamId,
        service_name: serviceName,
        data_product_id: resolved.dataProductId,
        output_port_id: outputPortId,
        day: now.toISOString().slice(0, 10),
        trace_id: use.traceId,
        span_id: use.spanId,
        created_at: now.toISOString(),
      },
    },
  ];
}

/** Spans, and the uses without an agreement found in them, removed past the retention (the server starts its hourly sweep). */
export class UsageService extends ReadRecordsService<"usage_violations"> {
  constructor(...args: ReadRecordsArgs) {
    super({ name: "usage", deleteStoredBefore: usageRepository.deleteAnyStoredBefore, violations: "usage_violations" }, ...args);
  }

  /**
   * Stores each span that used a data product, port or access (docs/lineage.md, "Usage"), rejects
   * the others with their reason, and raises AccessViolationDetectedEvent for a use of a port
   * without an active access — in one transaction, in a number of statements that does not grow
   * with the spans of the request, only with its size in slices.
   */
  async post(p: Principal, body: unknown): Promise<TracesAnswer> {
    const { uses } = readTracesRequest(body);
    const now = this.clock.now();
    return this.events.transaction(p, async (trx, emit) => {
      const catalog = await CatalogLookups.of(trx, p.organizationId, uses);
      const reasons: string[] = [];
      const taken: Array<{ use: SpanUse; resolved: ResolvedUse }> = [];
      for (const use of uses) {
        const resolved = resolveUse(use, catalog);
        if ("reason" in resolved) reasons.push(`${use.path} ${resolved.reason}`);
        else {
          policy.postUsage(p, { providerTeamId: resolved.providerTeamId, consumerTeamId: resolved.consumer.teamId, dataProductId: resolved.dataProductId });
          taken.push({ use, resolved });
        }
      }
      await usageRepository.upsertSpans(trx, taken.map(({ use, resolved }) => spanRow(p, use, resolved, now)));
      const reads = taken.flatMap(({ use, resolved }) => readOf(p.organizationId, use, resolved, now));
      await raiseWithoutAgreement(trx, emit, p.organizationId, reads, (unagreed) => usageRepository.recordViolations(trx, unagreed.map((r) => r.row)));
      if (reasons.length === 0) return {};
      const more = reasons.length > REASONS_SHOWN ? `; and ${reasons.length - REASONS_SHOWN} more` : "";
      return { partialSuccess: { rejectedSpans: reasons.length, errorMessage: reasons.slice(0, REASONS_SHOWN).join("; ") + more } };
    });
  }

  /** Stored spans, ordered by when they started; `limit` is one more than the page for the next-page probe. */
  async list(p: Principal, filter: UsageSpanFilter, offset: number, limit: number) {
    return usageRepository.list(this.database.db, p.organizationId, filter, offset, limit, this.limits.pageBytes);
  }

  /** Deletes by scope, product, contract or span, or every span the principal may delete. */
  async delete(p: Principal, filter: Omit<UsageDeleteFilter, "teamIds">): Promise<number> {
    const teamIds = policy.usageDeletableTeams(p);
    return this.events.transaction(p, async (trx) => usageRepository.delete(trx, p.organizationId, { ...filter, teamIds }));
  }

  /** The uses without an agreement recorded against a provider product's ports, newest first (404 for a product not in the catalog), in their answer's shape. */
  async violationsOf(p: Principal, dataProductId: string, limit: number): Promise<UsageViolation[]> {
    const rows = await this.recordedViolations(p, dataProductId, limit);
    return rows.map((r) => ({
      dataProductId: r.data_product_id,
      outputPortId: r.output_port_id,
      day: r.day,
      consumerType: r.consumer_type as UsageViolation["consumerType"],
      consumerDataProductId: r.consumer_type === "dataProduct" ? r.consumer_id : null,
      consumerTeamId: r.consumer_team_id,
      span: { traceId: r.trace_id, spanId: r.span_id, serviceName: r.service_name },
      detectedAt: r.created_at,
    }));
  }

  /** Who used a data product, how often and when last (404 when the product is not in the catalog). */
  async ofDataProduct(p: Principal, id: string): Promise<UsageSummary> {
    const db = this.database.db;
    if ((await lineageRepository.product(db, p.organizationId, id)) === undefined) throw notFound("Data product", id);
    return this.summary({ column: "data_product_id", id }, p.organizationId);
  }

  /** Who used an access, how often and when last (404 when there is no such access). */
  async ofAccess(p: Principal, id: string): Promise<UsageSummary> {
    if ((await usageRepository.access(this.database.db, p.organizationId, id)) === undefined) throw notFound("Access", id);
    return this.summary({ column: "access_id", id }, p.organizationId);
  }

  private async summary(by: { column: "data_product_id" | "access_id"; id: string }, organizationId: string): Promise<UsageSummary> {
    const db = this.database.db;
    const [count, rows] = await Promise.all([usageRepository.countOf(db, organizationId, by), usageRepository.consumersOf(db, organizationId, by, SUMMARY_CONSUMERS)]);
    return {
      count,
      consumers: rows.map((r) => ({ type: r.consumer_type as UsageSummary["consumers"][number]["type"], id: r.consumer_id, count: Number(r.uses), lastUsedAt: r.last_used_at })),
    };
  }
}
