import type { ValidateFunction } from "ajv";
import type { FastifyBaseLogger } from "fastify";
import { Retention, RETENTION_BATCH } from "../../platform/retention.js";
import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Database, Executor } from "../../platform/database/index.js";
import { badRequest, invalid, notFound, type FieldViolation } from "../../platform/errors.js";
import { createAjv, standardViolations } from "../../platform/validation.js";
import type { EventLog, Emit } from "../../events/log.js";
import { policy } from "../../policies/index.js";
import { documentLimits } from "../catalog/document-limits.js";
import { lineageRepository } from "../lineage/repository.js";
import { raiseIfWithoutAgreement } from "../lineage/violations.js";
import { spanCount, spanUses, type SpanUse } from "./otlp.js";
import { usageRepository, type UsageDeleteFilter, type UsageSpanFilter } from "./repository.js";
import { CatalogLookups, resolveUse, UNKNOWN_SERVICE, type ResolvedUse } from "./resolve.js";
import { MAX_SPAN_BYTES, MAX_SPANS_PER_REQUEST, TracesRequestSchema, type TracesRequest, type UsageSummary } from "./shapes.js";

/** Most old spans one post, or one step of the periodic sweep, removes. */
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

export class UsageService {
  private readonly retention: Retention;

  constructor(
    private readonly database: Database,
    private readonly events: EventLog,
    private readonly clock: Clock,
    retentionDays: number,
  ) {
    this.retention = new Retention("usage", clock, retentionDays, (cutoff, limit) => usageRepository.deleteAnyStoredBefore(database.db, cutoff, limit));
  }

  /**
   * Stores each span that used a data product, port or access (docs/lineage.md, "Usage"), rejects
   * the others with their reason, removes spans past the retention, and raises
   * AccessViolationDetectedEvent for a use of a port without an active access — in one transaction.
   */
  async post(p: Principal, body: unknown): Promise<TracesAnswer> {
    const { uses } = readTracesRequest(body);
    const now = this.clock.now();
    return this.events.transaction(p, async (trx, emit) => {
      const catalog = new CatalogLookups(trx, p.organizationId);
      const reasons: string[] = [];
      for (const use of uses) {
        const resolved = await resolveUse(use, catalog);
        if ("reason" in resolved) {
          reasons.push(`${use.path} ${resolved.reason}`);
          continue;
        }
        policy.postUsage(p, { providerTeamId: resolved.providerTeamId, consumerTeamId: resolved.consumer.teamId, dataProductId: resolved.dataProductId });
        await usageRepository.upsertSpan(trx, {
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
        });
        await this.checkUse(trx, emit, p.organizationId, use, resolved, now);
      }
      await usageRepository.deleteStoredBefore(trx, p.organizationId, this.retention.cutoff(now), RETENTION_BATCH);
      if (reasons.length === 0) return {};
      const more = reasons.length > REASONS_SHOWN ? `; and ${reasons.length - REASONS_SHOWN} more` : "";
      return { partialSuccess: { rejectedSpans: reasons.length, errorMessage: reasons.slice(0, REASONS_SHOWN).join("; ") + more } };
    });
  }

  /** A use of a port by a named consumer goes through lineage's one path for reads without an agreement. */
  private async checkUse(ex: Executor, emit: Emit, organizationId: string, use: SpanUse, resolved: ResolvedUse, now: Date): Promise<void> {
    const { consumer, outputPortId } = resolved;
    if (outputPortId === null || consumer.type === "service") return;
    const serviceName = use.serviceName ?? UNKNOWN_SERVICE;
    const port = { dataProductId: resolved.dataProductId, outputPortId, ownerTeamId: resolved.providerTeamId };
    const record = () =>
      usageRepository.recordViolation(ex, {
        organization_id: organizationId,
        consumer_type: consumer.type,
        consumer_id: consumer.id,
        service_name: serviceName,
        data_product_id: port.dataProductId,
        output_port_id: port.outputPortId,
        day: now.toISOString().slice(0, 10),
        trace_id: use.traceId,
        span_id: use.spanId,
        created_at: now.toISOString(),
      });
    const seen = { span: { traceId: use.traceId, spanId: use.spanId, serviceName } };
    await raiseIfWithoutAgreement(ex, emit, organizationId, { port, consumer: { dataProductId: consumer.dataProductId, teamId: consumer.teamId }, seen }, record);
  }

  /** Stored spans, ordered by when they started; `limit` is one more than the page for the next-page probe. */
  async list(p: Principal, filter: UsageSpanFilter, offset: number, limit: number) {
    return usageRepository.list(this.database.db, p.organizationId, filter, offset, limit, documentLimits().pageBytes);
  }

  /** Deletes by scope, product, contract or span, or every span the principal may delete. */
  async delete(p: Principal, filter: Omit<UsageDeleteFilter, "teamIds">): Promise<number> {
    const teamIds = policy.usageDeletableTeams(p);
    return this.events.transaction(p, async (trx) => usageRepository.delete(trx, p.organizationId, { ...filter, teamIds }));
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

  /** Starts the hourly retention sweep (the server starts and stops it). */
  start(logger: FastifyBaseLogger): void {
    this.retention.start(logger);
  }

  async stop(): Promise<void> {
    await this.retention.stop();
  }

  /** Removes every organization's spans past the retention; answers how many. */
  sweep(): Promise<number> {
    return this.retention.sweep();
  }
}
