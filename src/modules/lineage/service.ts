import type { ValidateFunction } from "ajv";
import type { Principal } from "../../platform/auth.js";
import type { Executor } from "../../platform/database/index.js";
import { badRequest, invalid, type FieldViolation } from "../../platform/errors.js";
import { createAjv, standardViolations } from "../../platform/validation.js";
import { policy } from "../../policies/index.js";
import { normalizeNamespace } from "./naming.js";
import { mapPorts, readsNeedingAccess, type CatalogProduct, type Consumer, type PortIndex } from "./reads.js";
import { ReadRecordsService, type ReadRecordsArgs } from "./read-records.js";
import { raiseWithoutAgreement, type SeenRead } from "./violations.js";
import { lineageRepository, type LineageDeleteFilter, type LineageEventFilter, type LineageViolationRow, type NewLineageEdge, type ProductRow } from "./repository.js";
import { MAX_DATASETS_PER_REQUEST, MAX_EVENT_BYTES, MAX_EVENTS_PER_REQUEST, RunEventSchema, type RunEvent } from "./shapes.js";

/** Most data products whose ports a post maps datasets against. */
const MAX_MAPPED_PRODUCTS = 10_000;

const validateRunEvent: ValidateFunction = createAjv().compile(RunEventSchema);

export interface LinkParams {
  dataProductId?: string;
  outputPortName?: string;
}

/** A run's consumer: always a data product (docs/lineage.md). */
type ProductConsumer = Consumer & { dataProductId: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The body as run events, each with its JSON text as stored: one event or an array of them, each
 * checked against the OpenLineage facts (shapes.ts). Every problem names its member
 * (`[3].run.runId`); nothing is stored unless all pass.
 */
export function readRunEvents(body: unknown): { runEvents: RunEvent[]; docs: string[] } {
  const many = Array.isArray(body);
  if (!many && !isRecord(body)) throw badRequest("The body must be one OpenLineage RunEvent (a JSON object) or an array of them.");
  const events = many ? (body as unknown[]) : [body];
  if (events.length === 0) throw badRequest("The array holds no run events.");
  if (events.length > MAX_EVENTS_PER_REQUEST) {
    throw badRequest(`One request may carry at most ${MAX_EVENTS_PER_REQUEST} run events; this one has ${events.length}. Send them in several requests.`);
  }
  const violations: FieldViolation[] = [];
  // Each event's text is made once: its size is checked on it, and it is what is stored.
  const docs: string[] = [];
  events.forEach((event, i) => {
    const base = many ? `[${i}]` : "";
    if (!validateRunEvent(event)) {
      violations.push(...standardViolations(validateRunEvent.errors, base));
      return;
    }
    const doc = JSON.stringify(event);
    const bytes = Buffer.byteLength(doc);
    if (bytes > MAX_EVENT_BYTES) violations.push({ field: base || "body", message: `the run event takes ${bytes} bytes; at most ${MAX_EVENT_BYTES} are kept per event` });
    docs.push(doc);
  });
  if (violations.length > 0) throw invalid("The body is not a valid OpenLineage RunEvent (or array of them).", violations);
  const runEvents = events as RunEvent[];
  const datasets = runEvents.reduce((n, e) => n + (e.inputs?.length ?? 0) + (e.outputs?.length ?? 0), 0);
  if (datasets > MAX_DATASETS_PER_REQUEST) {
    throw badRequest(`The run events of one request may name at most ${MAX_DATASETS_PER_REQUEST} input and output datasets together; these name ${datasets}. Send them in several requests.`);
  }
  return { runEvents, docs };
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

/** A run's reads that need an agreement, each with its record (docs/lineage.md, "Reads without an agreement"). */
function readsOf(organizationId: string, event: RunEvent, consumer: ProductConsumer, ports: PortIndex, now: Date): Array<SeenRead & { row: LineageViolationRow }> {
  const job = { namespace: event.job.namespace, name: event.job.name };
  return readsNeedingAccess(event.inputs ?? [], consumer, ports).map((read) => ({
    port: read.port,
    consumer,
    seen: { job, runId: event.run.runId, dataset: read.dataset },
    row: {
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
    },
  }));
}

function catalogProduct(row: ProductRow): CatalogProduct {
  const doc = JSON.parse(row.doc) as { outputPorts?: unknown };
  const ports = Array.isArray(doc.outputPorts) ? doc.outputPorts.filter(isRecord) : [];
  return { id: row.id, ownerTeamId: row.owner_team_id, outputPorts: ports };
}

/** Run events, and the reads without an agreement found in them, removed past the retention (the server starts its hourly sweep). */
export class LineageService extends ReadRecordsService<"lineage_violations"> {
  constructor(...args: ReadRecordsArgs) {
    super({ name: "lineage", deleteStoredBefore: lineageRepository.deleteAnyStoredBefore, violations: "lineage_violations" }, ...args);
  }

  /**
   * Stores run events with their job–dataset edges and records each read of an output port's
   * dataset by a consumer without an active access to that port (once per job, port and day),
   * raising AccessViolationDetectedEvent — all in one transaction, in a number of statements that
   * does not grow with the events of the request, only with its size in slices (docs/lineage.md).
   */
  async post(p: Principal, body: unknown, params: LinkParams): Promise<{ accepted: number; violations: number }> {
    const { runEvents, docs } = readRunEvents(body);
    const now = this.clock.now();
    const links = runEvents.map((event) => linkOf(event, params));
    return this.events.transaction(p, async (trx, emit) => {
      const consumers = await this.consumersOf(trx, p, links);
      const consumerOf = (i: number) => (links[i]!.dataProductId === undefined ? null : (consumers.get(links[i]!.dataProductId!) ?? null));
      const rows = runEvents.map((event, i) => ({
        organization_id: p.organizationId,
        run_id: event.run.runId,
        event_type: event.eventType ?? null,
        event_time: event.eventTime,
        job_namespace: event.job.namespace,
        job_name: event.job.name,
        data_product_id: links[i]!.dataProductId ?? null,
        output_port_name: links[i]!.outputPortName ?? null,
        team_id: posterTeam(p, consumerOf(i)),
        doc: docs[i]!,
        created_at: now.toISOString(),
      }));
      await lineageRepository.insertEvents(trx, rows, runEvents.map((event) => edgesOf(p.organizationId, event)));
      const reading = runEvents.flatMap((event, i) => {
        const consumer = consumerOf(i);
        return consumer === null || (event.inputs ?? []).length === 0 ? [] : [{ event, consumer }];
      });
      if (reading.length === 0) return { accepted: runEvents.length, violations: 0 };
      const ports = mapPorts((await lineageRepository.products(trx, p.organizationId, MAX_MAPPED_PRODUCTS)).map(catalogProduct));
      const reads = reading.flatMap(({ event, consumer }) => readsOf(p.organizationId, event, consumer, ports, now));
      const violations = await raiseWithoutAgreement(trx, emit, p.organizationId, reads, (unagreed) => lineageRepository.recordViolations(trx, unagreed.map((r) => r.row)));
      return { accepted: runEvents.length, violations };
    });
  }

  /** The catalog products the events name, looked up at once: a team principal must own each. */
  private async consumersOf(ex: Executor, p: Principal, links: ReadonlyArray<{ dataProductId?: string }>): Promise<Map<string, ProductConsumer>> {
    const ids = links.flatMap((link) => (link.dataProductId === undefined ? [] : [link.dataProductId]));
    const consumers = new Map<string, ProductConsumer>();
    if (ids.length === 0) return consumers;
    // A product not (yet) in the catalog: its lineage is kept, and nobody's agreement is checked.
    for (const row of await lineageRepository.productsByIds(ex, p.organizationId, ids)) {
      policy.postLineageFor(p, row.id, row.owner_team_id);
      consumers.set(row.id, { dataProductId: row.id, teamId: row.owner_team_id });
    }
    return consumers;
  }

  /** Stored events as JSON text, oldest first; `limit` is one more than the page for the next-page probe. */
  async list(p: Principal, filter: LineageEventFilter, offset: number, limit: number): Promise<{ docs: string[]; cut: boolean }> {
    return lineageRepository.list(this.database.db, p.organizationId, filter, offset, limit, this.limits.pageBytes);
  }

  /** Deletes by run, by job namespace (and name), or every event the principal may delete. */
  async delete(p: Principal, filter: Omit<LineageDeleteFilter, "teamIds">): Promise<number> {
    if (filter.jobName !== undefined && filter.jobNamespace === undefined) {
      throw badRequest("jobName needs jobNamespace: name the job by its namespace and name.");
    }
    const teamIds = policy.lineageDeletableTeams(p);
    return this.events.transaction(p, async (trx) => lineageRepository.delete(trx, p.organizationId, { ...filter, teamIds }));
  }

  /** The reads without an agreement recorded against a provider product's ports, newest first (404 for a product not in the catalog). */
  async violationsOf(p: Principal, dataProductId: string, limit: number) {
    return this.recordedViolations(p, dataProductId, limit);
  }
}
