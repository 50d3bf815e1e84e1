import type { Principal } from "../../platform/auth.js";
import type { Database } from "../../platform/database/index.js";
import { badRequest, notFound } from "../../platform/errors.js";
import { normalizeNamespace, portsHolding, type Dataset } from "./naming.js";
import { mapPorts, portsOf, type CatalogProduct } from "./reads.js";
import { lineageRepository, type EdgeRow } from "./repository.js";
import type { LineageGraph, LineageNode } from "./shapes.js";

/** Most nodes and edges one graph answer holds; past them it is cut and says so. */
export const MAX_GRAPH_NODES = 500;
export const MAX_GRAPH_EDGES = 2000;
/** Most datasets of one namespace looked at to find an output port's. */
const MAX_PORT_CANDIDATES = 5000;
const MAX_MAPPED_PRODUCTS = 10_000;

export interface GraphStart {
  dataset?: string;
  job?: string;
  dataProductId?: string;
  depth: number;
}

type Ref = { namespace: string; name: string };

const datasetId = (d: Ref) => `dataset:${d.namespace}/${d.name}`;
const jobId = (j: Ref) => `job:${j.namespace}/${j.name}`;

/**
 * `<namespace>/<name>`: the name follows the namespace's last `/` for namespaces like `bigquery`
 * or `dbt`, and the first `/` after the authority for URLs (`s3://bucket/path/to/object`).
 */
export function splitRef(ref: string, what: string): Ref {
  const url = /^([a-z][a-z0-9+.-]*:\/\/[^/]+)\/(.+)$/i.exec(ref);
  if (url !== null) return { namespace: url[1], name: url[2] };
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) throw badRequest(`${what} must be written <namespace>/<name>, e.g. postgres://db:5432/shop.public.orders; got '${ref}'.`);
  return { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

/**
 * The graph around a dataset, a job or a data product's output ports (docs/lineage.md): datasets
 * and jobs as nodes, data flowing dataset → job (read) and job → dataset (written) as edges, up to
 * `depth` jobs away, bounded by MAX_GRAPH_NODES and MAX_GRAPH_EDGES.
 */
export async function lineageGraph(database: Database, p: Principal, start: GraphStart): Promise<LineageGraph> {
  const given = [start.dataset, start.job, start.dataProductId].filter((v) => v !== undefined).length;
  if (given !== 1) throw badRequest("Name exactly one starting point: dataset, job or dataProductId.");
  const db = database.db;
  const org = p.organizationId;
  const ports = mapPorts((await lineageRepository.products(db, org, MAX_MAPPED_PRODUCTS)).map((row) => {
    const doc = JSON.parse(row.doc) as { outputPorts?: unknown };
    const outputPorts = Array.isArray(doc.outputPorts) ? (doc.outputPorts as CatalogProduct["outputPorts"]) : [];
    return { id: row.id, ownerTeamId: row.owner_team_id, outputPorts: outputPorts.filter((o) => typeof o === "object" && o !== null) };
  }));

  const nodes = new Map<string, LineageNode>();
  const edges = new Map<string, { source: string; target: string }>();
  let truncated = false;
  const addDataset = (d: Dataset): boolean => {
    const id = datasetId(d);
    if (nodes.has(id)) return false;
    if (nodes.size >= MAX_GRAPH_NODES) return (truncated = true), false;
    const port = portsOf(ports, d)[0];
    nodes.set(id, { id, type: "dataset", namespace: d.namespace, name: d.name, ...(port ? { dataProductId: port.dataProductId, outputPortId: port.outputPortId } : {}) });
    return true;
  };
  const addJob = (j: Ref): boolean => {
    const id = jobId(j);
    if (nodes.has(id)) return false;
    if (nodes.size >= MAX_GRAPH_NODES) return (truncated = true), false;
    nodes.set(id, { id, type: "job", namespace: j.namespace, name: j.name });
    return true;
  };

  let datasets: Dataset[] = [];
  let jobs: Ref[] = [];
  if (start.dataset !== undefined) {
    const d = splitRef(start.dataset, "dataset");
    const dataset = { namespace: normalizeNamespace(d.namespace), name: d.name };
    addDataset(dataset);
    datasets = [dataset];
  } else if (start.job !== undefined) {
    const j = splitRef(start.job, "job");
    addJob(j);
    jobs = [j];
  } else {
    const own = ports.entries.filter((m) => m.port.dataProductId === start.dataProductId);
    if (own.length === 0 && (await lineageRepository.product(db, org, start.dataProductId!)) === undefined) throw notFound("Data product", start.dataProductId!);
    for (const mapped of own) {
      // Names compare without case for SQL datasets: the port's datasets are found among those stored under its namespace.
      for (const d of await lineageRepository.datasetsIn(db, org, mapped.pattern.namespace, MAX_PORT_CANDIDATES)) {
        if (portsHolding([mapped], d).length > 0 && addDataset(d)) datasets.push(d);
      }
    }
  }

  const addEdge = (e: EdgeRow): void => {
    const ds = datasetId({ namespace: e.dataset_namespace, name: e.dataset_name });
    const job = jobId({ namespace: e.job_namespace, name: e.job_name });
    if (!nodes.has(ds) || !nodes.has(job)) return;
    const [source, target] = e.direction === "input" ? [ds, job] : [job, ds];
    const key = `${source}\u0000${target}`;
    if (edges.has(key)) return;
    if (edges.size >= MAX_GRAPH_EDGES) return void (truncated = true);
    edges.set(key, { source, target });
  };

  // Each step: from the datasets reached to the jobs that read or write them, then on to those jobs' datasets.
  for (let step = 0; step < start.depth && !truncated; step++) {
    if (datasets.length > 0) {
      for (const e of await lineageRepository.edgesOfDatasets(db, org, datasets, MAX_GRAPH_EDGES + 1)) {
        const j = { namespace: e.job_namespace, name: e.job_name };
        if (addJob(j)) jobs.push(j);
        addEdge(e);
      }
    }
    datasets = [];
    if (jobs.length === 0) break;
    for (const e of await lineageRepository.edgesOfJobs(db, org, jobs, MAX_GRAPH_EDGES + 1)) {
      const d = { namespace: e.dataset_namespace, name: e.dataset_name };
      if (addDataset(d)) datasets.push(d);
      addEdge(e);
    }
    jobs = [];
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()], truncated };
}
