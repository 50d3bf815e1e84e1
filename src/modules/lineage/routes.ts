import { Type } from "@sinclair/typebox";
import type { Database } from "../../platform/database/index.js";
import { pageWindow, sendLimitedPage } from "../../platform/http/paging.js";
import { errors, FromQuery, PageQuery } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import { sendStored } from "../catalog/document-routes.js";
import { lineageGraph, MAX_GRAPH_EDGES, MAX_GRAPH_NODES } from "./graph.js";
import type { LineageService } from "./service.js";
import {
  LineageDeletedSchema,
  LineageDeleteQuery,
  LineageGraphQuery,
  LineageGraphSchema,
  LineageListQuery,
  LineagePostedSchema,
  LineageQuery,
  LineageViolationsSchema,
  MAX_EVENTS_PER_REQUEST,
  RunEventSchema,
} from "./shapes.js";

const tags = ["lineage"];

/** Most recorded reads without an agreement one answer lists. */
const VIOLATIONS_LIMIT = 1000;

export function lineageRoutes(app: App, lineage: LineageService, database: Database): void {
  app.post(
    "/api/v1/lineage",
    {
      schema: {
        tags,
        summary: "Submit OpenLineage run events",
        description: `One OpenLineage RunEvent, or an array of at most ${MAX_EVENTS_PER_REQUEST} (docs/lineage.md). Link the runs to the data product they work for with \`dataProductId\` (which takes precedence) or the \`entropy_data\` run facet; a run that reads another product's output port without an active access to it raises AccessViolationDetectedEvent.`,
        querystring: LineageQuery,
        body: Type.Unknown({ description: "An OpenLineageRunEvent (components/schemas/OpenLineageRunEvent), or an array of them." }),
        response: { 200: LineagePostedSchema, ...errors(403, 413, 422) },
      },
    },
    async (request) => lineage.post(principalOf(request), request.body, request.query),
  );

  app.get(
    "/api/v1/lineage",
    {
      schema: {
        tags,
        summary: "List stored OpenLineage run events, oldest first",
        querystring: Type.Object({ ...LineageListQuery.properties, ...PageQuery, ...FromQuery }),
        response: { 200: Type.Array(RunEventSchema), ...errors() },
      },
    },
    async (request, reply) => {
      const window = pageWindow(request.query);
      const { jobNamespace, jobName, runId, eventType, dataProductId } = request.query;
      const { docs, cut } = await lineage.list(principalOf(request), { jobNamespace, jobName, runId, eventType, dataProductId }, window.offset, window.size + 1);
      return sendStored(reply, `[${sendLimitedPage(request, reply, docs, window, cut).join(",")}]`);
    },
  );

  app.delete(
    "/api/v1/lineage",
    {
      schema: {
        tags,
        summary: "Delete OpenLineage run events",
        description: "By `runId`, by `jobNamespace` (with `jobName`: one job), or, with no filter, every event the caller may delete: an organization principal's all of them, a team principal's those its teams posted.",
        querystring: LineageDeleteQuery,
        response: { 200: LineageDeletedSchema, ...errors(403) },
      },
    },
    async (request) => ({ deletedCount: await lineage.delete(principalOf(request), request.query) }),
  );

  app.get(
    "/api/v1/lineage/graph",
    {
      schema: {
        tags,
        summary: "The lineage graph around a dataset, a job or a data product",
        description: `Datasets and jobs as nodes; edges run the way data flows (dataset → job that reads it, job → dataset it writes). \`depth\` counts job steps each way. At most ${MAX_GRAPH_NODES} nodes and ${MAX_GRAPH_EDGES} edges; \`truncated\` says the graph was cut there.`,
        querystring: LineageGraphQuery,
        response: { 200: LineageGraphSchema, ...errors(404) },
      },
    },
    async (request) => {
      const { dataset, job, dataProductId, depth } = request.query;
      return lineageGraph(database, principalOf(request), { dataset, job, dataProductId, depth: depth ?? 2 });
    },
  );

  app.get(
    "/api/v1/lineage/violations",
    {
      schema: {
        tags,
        summary: "Reads without an agreement of a data product's output ports",
        description: `Runs that read a port's dataset for a consumer without an active access to it, once per job, port and day, newest first (at most ${VIOLATIONS_LIMIT}).`,
        querystring: Type.Object({ dataProductId: Type.String({ minLength: 1, maxLength: 1024, description: "The providing data product." }) }),
        response: { 200: LineageViolationsSchema, ...errors(404) },
      },
    },
    async (request) => {
      const rows = await lineage.violationsOf(principalOf(request), request.query.dataProductId, VIOLATIONS_LIMIT);
      return rows.map((r) => ({
        dataProductId: r.data_product_id,
        outputPortId: r.output_port_id,
        day: r.day,
        consumerDataProductId: r.consumer_data_product_id,
        consumerTeamId: r.consumer_team_id,
        job: { namespace: r.job_namespace, name: r.job_name },
        runId: r.run_id,
        dataset: { namespace: r.dataset_namespace, name: r.dataset_name },
        detectedAt: r.created_at,
      }));
    },
  );
}
