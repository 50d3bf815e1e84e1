import { pagePath, type LineageGraph, type LineageNode } from "../api.js";
import { layout, lineageHref } from "../lineage.js";

/**
 * The lineage graph drawn in layers (docs/lineage.md, "In the web app"): data flows left to right,
 * from datasets into the jobs that read them and from jobs into the datasets they write. Nodes are
 * HTML boxes with links (so the router and the keyboard handle them like any link), edges an SVG
 * underneath. No layout library: `layout()` in lineage.ts places the nodes.
 */

const W = 210;
const H = 66;
const GAP_X = 56;
const GAP_Y = 14;

const KIND: Record<string, string> = { job: "Job", dataset: "Dataset", port: "Output port" };

function kindOf(n: LineageNode): "job" | "dataset" | "port" {
  return n.type === "job" ? "job" : n.dataProductId !== undefined ? "port" : "dataset";
}

function NodeBox({ node, start, x, y }: { node: LineageNode; start: boolean; x: number; y: number }) {
  const kind = kindOf(node);
  const href = node.type === "job" ? lineageHref({ job: node }) : lineageHref({ dataset: node });
  return (
    <div class={`lineage-node ${kind}${start ? " start" : ""}`} style={{ left: `${x}px`, top: `${y}px`, width: `${W}px`, height: `${H}px` }} data-node={node.id}>
      <span class="lineage-kind">{KIND[kind]}</span>
      <a href={href} class="lineage-name" title={`${node.namespace}/${node.name}`}>
        {node.name}
      </a>
      {node.dataProductId !== undefined ? (
        <a class="lineage-sub" href={pagePath("dataproducts", node.dataProductId)} title={`Data product ${node.dataProductId}, port ${node.outputPortId ?? ""}`}>
          {node.dataProductId}
          {node.outputPortId && <span class="muted"> · {node.outputPortId}</span>}
        </a>
      ) : (
        <span class="lineage-sub" title={node.namespace}>
          {node.namespace}
        </span>
      )}
    </div>
  );
}

export function LineageGraphView({ graph, startIds, label }: { graph: LineageGraph; startIds: ReadonlySet<string>; label: string }) {
  const { placed, columns, rows } = layout(graph, startIds);
  const at = new Map(placed.map((p) => [p.node.id, { x: p.column * (W + GAP_X), y: p.row * (H + GAP_Y) }]));
  const width = Math.max(W, columns * (W + GAP_X) - GAP_X);
  const height = Math.max(H, rows * (H + GAP_Y) - GAP_Y);
  const names = new Map(graph.nodes.map((n) => [n.id, n.name]));
  return (
    <figure class="lineage-figure">
      <div class="lineage-scroll">
        <div class="lineage-canvas" role="group" aria-label={label} style={{ width: `${width}px`, height: `${height}px` }}>
          <svg class="lineage-edges" width={width} height={height} aria-hidden="true">
            <defs>
              <marker id="lineage-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M0,0 L10,5 L0,10 z" />
              </marker>
            </defs>
            {graph.edges.map((e) => {
              const a = at.get(e.source);
              const b = at.get(e.target);
              if (!a || !b) return null;
              const [x1, y1, x2, y2] = [a.x + W, a.y + H / 2, b.x, b.y + H / 2];
              const bend = Math.max(40, Math.abs(x2 - x1) / 2);
              return <path key={`${e.source} ${e.target}`} d={`M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`} marker-end="url(#lineage-arrow)" />;
            })}
          </svg>
          {placed.map((p) => {
            const { x, y } = at.get(p.node.id)!;
            return <NodeBox key={p.node.id} node={p.node} start={startIds.has(p.node.id)} x={x} y={y} />;
          })}
        </div>
      </div>
      <figcaption>
        <details>
          <summary>
            {graph.nodes.length} {graph.nodes.length === 1 ? "node" : "nodes"}, {graph.edges.length} {graph.edges.length === 1 ? "edge" : "edges"}: the edges as a list
          </summary>
          <ul class="lineage-edge-list">
            {graph.edges.map((e) => (
              <li key={`${e.source} ${e.target}`}>
                {names.get(e.source) ?? e.source} → {names.get(e.target) ?? e.target}
              </li>
            ))}
          </ul>
        </details>
      </figcaption>
    </figure>
  );
}
