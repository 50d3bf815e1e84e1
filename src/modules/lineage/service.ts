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
import { normalizeNamespace } from "./naming.js";
import { mapPorts, readsNeedingAccess, type CatalogProduct, type Consumer, type PortIndex } from "./reads.js";
import { raiseIfWithoutAgreement } from "./violations.js";
import { lineageRepository, type LineageDeleteFilter, type LineageEventFilter, type NewLineageEdge, type ProductRow } from "./repository.js";
import { MAX_DATASETS_PER_REQUEST, MAX_EVENT_BYTES, MAX_EVENTS_PER_REQUEST, RunEventSchema, type RunEvent } from "./shapes.js";

/** Most data products whose ports a post maps datasets against. */
const MAX_MAPPED_PRODUCTS = 10_000;
/** Most old events one post, or one step of the periodic sweep, removes. */

const validateRunEvent: ValidateFunction = createAjv().compile(RunEventSchema);

export interface LinkParams {
  dataProductId?: string;
  outputPortName?: string;
}

/** A run's consumer: always a data product (docs/lineage.md). */
type ProductConsumer = Consumer & { dataProductId: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The body as run events: one event or an array of them, each checked against the OpenLineage
 * facts (shapes.ts). Every problem names its member (`[3].run.runId`); nothing is stored unless all pass.
 */
export function readRunEvents(body: unknown): RunEvent[] {
  const many = Array.isArray(body);
  if (!many && !isRecord(body)) throw badRequest("The body must be one OpenLineage RunEvent (a JSON object) or an array of them.");
  const events = many ? (body as unknown[]) : [body];
  if (events.length === 0) throw badRequest("The array holds no run events.");
  if (events.length > MAX_EVENTS_PER_REQUEST) {
    throw badRequest(`One request may carry at most ${MAX_EVENTS_PER_REQUEST} run events; this one has ${events.length}. Send them in several requests.`);
  }
  const violations: FieldViolation[] = [];
  events.forEach((event, i) => {
    const base = many ? `[${i}]` : "";
    if (!validateRunEvent(event)) {
      violations.push(...standardViolations(validateRunEvent.errors, base));
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(event));
    if (bytes > MAX_EVENT_BYTES) violations.push({ field: base || "body", message: `the run event takes ${bytes} bytes; at most ${MAX_EVENT_BYTES} are kept per event` });
  });
  if (violations.length > 0) throw invalid("The body is not a valid OpenLineage RunEvent (or array of them).", violations);
  const runEvents = events as RunEvent[];
  const datasets = runEvents.reduce((n, e) => n + (e.inputs?.length ?? 0) + (e.outputs?.length ?? 0), 0);
  if (datasets > MAX_DATASETS_PER_REQUEST) {
    throw badRequest(`The run events of one request may name at most ${MAX_DATASETS_PER_REQUEST} input and output datasets together; these name ${datasets}. Send them in several requests.`);
  }
  return runEvents;
}

/** The link of an event to a data product: the query's, else the `entropy_data` run facet's. */
function linkOf(event: RunEvent, params: LinkParams): { dataProductId?: string; outputPortName?: string } {
  const facet = event.run.facets?.entropy_data;
  if (params.dataProductId !== undefined) return { dataProductId: params.dataProductId, outputPortName: params.outputPortName };
  return { dataProductId: facet?.dataProductId, outputPortName: params.outputPortName ?? facet?.outputPortName };
}

function edgesOf(organizationId: string, event: RunEvent): NewLineageEdge[] {
  const edge = (direction: "input" | "output") => (d: { namespace: string; name: string }) => ({
    organization_id: organizationId,
    job_namespace: event.job.namespace,
    job_name: event.job.name,
    dataset_namespace: normalizeNamespace(d.namespace),
    dataset_name: d.name,
    direction,
  });
  return [...(event.inputs ?? []).map(edge("input")), ...(event.outputs ?? []).map(edge("output"))];
}

/** The team a post is kept for (who may delete it): the consumer's owner when the principal acts for it, else the principal's first team. */
function posterTeam(p: Principal, consumer: Consumer | null): string | null {
  if (p.scope === "organization") return null;
  if (consumer?.teamId != null && p.teamIds.includes(consumer.teamId)) return consumer.teamId;
  return p.teamIds[0] ?? null;
}

function catalogProduct(row: ProductRow): CatalogProduct {
  const doc = JSON.parse(row.doc) as { outputPorts?: unknown };
  const ports = Array.isArray(doc.outputPorts) ? doc.outputPorts.filter(isRecord) : [];
  return { id: row.id, ownerTeamId: row.owner_team_id, outputPorts: ports };
}

export class LineageService {
  private readonly retention: Retention;

  constructor(
    private readonly database: Database,
    private readonly events: EventLog,
    private readonly clock: Clock,
    retentionDays: number,
  ) {
    this.retention = new Retention("lineage", clock, retentionDays, (cutoff, limit) => lineageRepository.deleteAnyStoredBefore(database.db, cutoff, limit));
  }

  /**
   * Stores run events with their job–dataset edges, removes events past the retention, and records
   * each read of an output port's dataset by a consumer without an active access to that port
   * (once per job, port and day), raising AccessViolationDetectedEvent — all in one transaction.
   */
  async post(p: Principal, body: unknown, params: LinkParams): Promise<{ accepted: number; violations: number }> {
    const runEvents = readRunEvents(body);
    const now = this.clock.now();
    return this.events.transaction(p, async (trx, emit) => {
      const consumers = new Map<string, ProductConsumer | null>();
      let ports: PortIndex | undefined;
      let violations = 0;
      for (const event of runEvents) {
        const link = linkOf(event, params);
        let consumer: ProductConsumer | null = null;
        if (link.dataProductId !== undefined) {
          consumer = await this.consumerOf(trx, p, link.dataProductId, consumers);
        }
        await lineageRepository.insertEvent(
          trx,
          {
            organization_id: p.organizationId,
            run_id: event.run.runId,
            event_type: event.eventType ?? null,
            event_time: event.eventTime,
            job_namespace: event.job.namespace,
            job_name: event.job.name,
            data_product_id: link.dataProductId ?? null,
            output_port_name: link.outputPortName ?? null,
            team_id: posterTeam(p, consumer),
            doc: JSON.stringify(event),
            created_at: now.toISOString(),
          },
          edgesOf(p.organizationId, event),
        );
        if (consumer === null || (event.inputs ?? []).length === 0) continue;
        ports ??= mapPorts((await lineageRepository.products(trx, p.organizationId, MAX_MAPPED_PRODUCTS)).map(catalogProduct));
        violations += await this.checkReads(trx, emit, p.organizationId, event, consumer, ports, now);
      }
      await lineageRepository.deleteStoredBefore(trx, p.organizationId, this.retention.cutoff(now), RETENTION_BATCH);
      return { accepted: runEvents.length, violations };
    });
  }

  /** The catalog product an event names, checked once per request: a team principal must own it. */
  private async consumerOf(ex: Executor, p: Principal, dataProductId: string, seen: Map<string, ProductConsumer | null>): Promise<ProductConsumer | null> {
    if (seen.has(dataProductId)) return seen.get(dataProductId)!;
    const row = await lineageRepository.product(ex, p.organizationId, dataProductId);
    // A product not (yet) in the catalog: its lineage is kept, and nobody's agreement is checked.
    const consumer = row === undefined ? null : { dataProductId: row.id, teamId: row.owner_team_id };
    if (row !== undefined) policy.postLineageFor(p, dataProductId, row.owner_team_id);
    seen.set(dataProductId, consumer);
    return consumer;
  }

  private async checkReads(ex: Executor, emit: Emit, organizationId: string, event: RunEvent, consumer: ProductConsumer, ports: PortIndex, now: Date): Promise<number> {
    let raised = 0;
    const job = { namespace: event.job.namespace, name: event.job.name };
    for (const read of readsNeedingAccess(event.inputs ?? [], consumer, ports)) {
      const record = () =>
        lineageRepository.recordViolation(ex, {
          organization_id: organizationId,
          job_namespace: job.namespace,
          job_name: job.name,
          data_product_id: read.port.dataProductId,
          output_port_id: read.port.outputPortId,
          day: now.toISOString().slice(0, 10),
          consumer_data_product_id: consumer.dataProductId,
          consumer_team_id: consumer.teamId,
          run_id: event.run.runId,
          dataset_namespace: read.dataset.namespace,
          dataset_name: read.dataset.name,
          created_at: now.toISOString(),
        });
      const seen = { job, runId: event.run.runId, dataset: read.dataset };
      if (await raiseIfWithoutAgreement(ex, emit, organizationId, { port: read.port, consumer, seen }, record)) raised++;
    }
    return raised;
  }

  /** Starts the hourly retention sweep (the server starts and stops it). */
  start(logger: FastifyBaseLogger): void {
    this.retention.start(logger);
  }

  async stop(): Promise<void> {
    await this.retention.stop();
  }

  /** Removes every organization's events past the retention; answers how many. */
  sweep(): Promise<number> {
    return this.retention.sweep();
  }

  /** Stored events as JSON text, oldest first; `limit` is one more than the page for the next-page probe. */
  async list(p: Principal, filter: LineageEventFilter, offset: number, limit: number): Promise<{ docs: string[]; cut: boolean }> {
    return lineageRepository.list(this.database.db, p.organizationId, filter, offset, limit, documentLimits().pageBytes);
  }

  /** Deletes by run, by job namespace (and name), or every event the principal may delete. */
  async delete(p: Principal, filter: Omit<LineageDeleteFilter, "teamIds">): Promise<number> {
    if (filter.jobName !== undefined && filter.jobNamespace === undefined) {
      throw badRequest("jobName needs jobNamespace: name the job by its namespace and name.");
    }
    const teamIds = policy.lineageDeletableTeams(p);
    return this.events.transaction(p, async (trx) => lineageRepository.delete(trx, p.organizationId, { ...filter, teamIds }));
  }

  /**
   * The reads without an agreement recorded against a provider product's ports, newest first; a
   * product not in the catalog is a 404, so a mistyped id does not read as a clean record.
   */
  async violationsOf(p: Principal, dataProductId: string, limit: number) {
    const rows = await lineageRepository.violationsOf(this.database.db, p.organizationId, dataProductId, limit);
    if (rows.length === 0 && (await lineageRepository.product(this.database.db, p.organizationId, dataProductId)) === undefined) throw notFound("Data product", dataProductId);
    return rows;
  }
}
