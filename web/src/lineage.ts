import type { LineageGraph, LineageNode } from "./api.js";

/**
 * What the web app reads out of a lineage graph (docs/lineage.md, "The graph"): which nodes lie
 * upstream and downstream of a starting set, and a layered layout for drawing it. Pure, no DOM.
 */

type Edge = LineageGraph["edges"][number];

function adjacency(edges: readonly Edge[]) {
  const out = new Map<string, string[]>();
  const into = new Map<string, string[]>();
  for (const e of edges) {
    (out.get(e.source) ?? out.set(e.source, []).get(e.source)!).push(e.target);
    (into.get(e.target) ?? into.set(e.target, []).get(e.target)!).push(e.source);
  }
  return { out, into };
}

/** Nodes reached from `start` following edges one way, the start excluded. */
function reach(start: Iterable<string>, next: Map<string, string[]>): Set<string> {
  const seen = new Set<string>(start);
  const queue = [...seen];
  const found = new Set<string>();
  while (queue.length > 0) {
    for (const n of next.get(queue.shift()!) ?? []) {
      if (seen.has(n)) continue;
      seen.add(n);
      found.add(n);
      queue.push(n);
    }
  }
  return found;
}

export interface ProductLink {
  dataProductId: string;
  outputPortIds: string[];
}

export interface Side {
  products: ProductLink[];
  jobs: LineageNode[];
}

/**
 * Upstream (data flows from it into the start) and downstream (from the start into it) of the
 * start nodes: the jobs and the other data products whose output ports' datasets are reached.
 */
export function sides(graph: LineageGraph, startIds: ReadonlySet<string>, selfProductId?: string): { upstream: Side; downstream: Side } {
  const { out, into } = adjacency(graph.edges);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const side = (ids: Set<string>): Side => {
    const products = new Map<string, Set<string>>();
    const jobs: LineageNode[] = [];
    for (const id of ids) {
      const n = byId.get(id);
      if (!n || startIds.has(id)) continue;
      if (n.type === "job") jobs.push(n);
      else if (n.dataProductId !== undefined && n.dataProductId !== selfProductId) {
        (products.get(n.dataProductId) ?? products.set(n.dataProductId, new Set()).get(n.dataProductId)!).add(n.outputPortId ?? "");
      }
    }
    return {
      products: [...products].map(([dataProductId, ports]) => ({ dataProductId, outputPortIds: [...ports].filter(Boolean).sort() })).sort((a, b) => a.dataProductId.localeCompare(b.dataProductId)),
      jobs: jobs.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`)),
    };
  };
  return { upstream: side(reach(startIds, into)), downstream: side(reach(startIds, out)) };
}

/** The start nodes of a graph answer: a product's port datasets, or the one dataset or job named. */
export function startNodes(graph: LineageGraph, start: { dataProductId?: string; id?: string }): Set<string> {
  if (start.dataProductId !== undefined) return new Set(graph.nodes.filter((n) => n.dataProductId === start.dataProductId).map((n) => n.id));
  return new Set(graph.nodes.filter((n) => n.id === start.id).map((n) => n.id));
}

export interface Placed {
  node: LineageNode;
  column: number;
  row: number;
}

/**
 * Layers for drawing: the start in one column, each step along an edge one column to the right,
 * each step against one to the left; within a column, nodes near the middle of their neighbours.
 */
export function layout(graph: LineageGraph, startIds: ReadonlySet<string>): { placed: Placed[]; columns: number; rows: number } {
  const { out, into } = adjacency(graph.edges);
  const rank = new Map<string, number>();
  const spread = (from: Iterable<string>) => {
    const queue = [...from];
    for (const id of queue) if (!rank.has(id)) rank.set(id, 0);
    while (queue.length > 0) {
      const id = queue.shift()!;
      const r = rank.get(id)!;
      for (const t of out.get(id) ?? []) if (!rank.has(t)) (rank.set(t, r + 1), queue.push(t));
      for (const s of into.get(id) ?? []) if (!rank.has(s)) (rank.set(s, r - 1), queue.push(s));
    }
  };
  spread(startIds);
  // Parts not joined to the start (none, from the graph endpoint) start a column 0 of their own.
  for (const n of graph.nodes) if (!rank.has(n.id)) spread([n.id]);
  const min = Math.min(0, ...rank.values());
  const columns: LineageNode[][] = [];
  for (const n of graph.nodes) (columns[rank.get(n.id)! - min] ??= []).push(n);
  for (let c = 0; c < columns.length; c++) columns[c] ??= [];
  const label = (n: LineageNode) => `${n.name} ${n.namespace}`;
  for (const col of columns) col.sort((a, b) => label(a).localeCompare(label(b)));
  // Two sweeps, left to right: order each column by the mean row of its neighbours in the column before.
  const row = new Map<string, number>();
  const number = () => columns.forEach((col) => col.forEach((n, i) => row.set(n.id, i)));
  number();
  for (let sweep = 0; sweep < 2; sweep++) {
    for (let c = 1; c < columns.length; c++) {
      const mean = (n: LineageNode) => {
        const near = [...(into.get(n.id) ?? []), ...(out.get(n.id) ?? [])].filter((id) => rank.get(id)! - min === c - 1).map((id) => row.get(id)!);
        return near.length === 0 ? row.get(n.id)! : near.reduce((a, b) => a + b, 0) / near.length;
      };
      const keys = new Map(columns[c].map((n) => [n.id, mean(n)]));
      columns[c].sort((a, b) => keys.get(a.id)! - keys.get(b.id)!);
      number();
    }
  }
  const placed = columns.flatMap((col, column) => col.map((node, r) => ({ node, column, row: r })));
  return { placed, columns: columns.length, rows: Math.max(0, ...columns.map((c) => c.length)) };
}

/** `/lineage?…`: the lineage view of a dataset, a job or a data product. */
export function lineageHref(start: { dataset?: LineageNode | { namespace: string; name: string }; job?: { namespace: string; name: string }; dataProductId?: string }): string {
  const params = new URLSearchParams();
  if (start.dataProductId !== undefined) params.set("dataProductId", start.dataProductId);
  else if (start.job !== undefined) params.set("job", `${start.job.namespace}/${start.job.name}`);
  else if (start.dataset !== undefined) params.set("dataset", `${start.dataset.namespace}/${start.dataset.name}`);
  return `/lineage?${params.toString()}`;
}
