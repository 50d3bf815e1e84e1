import { useState } from "preact/hooks";
import { get, pagePath, withQuery, type LineageGraph } from "../api.js";
import { LineageGraphView } from "../components/lineage-graph.js";
import { startNodes } from "../lineage.js";
import { navigate, useLocation } from "../router.js";
import { Empty, ErrorBox, Field, Loading, PageHeader, useLoad } from "../ui.js";

/**
 * The lineage view, `/lineage?dataset=…`, `?job=…` or `?dataProductId=…` with `depth` (docs/lineage.md,
 * "In the web app"): the graph around one starting point, drawn in layers.
 */

const DEPTHS = ["1", "2", "3", "4", "5"];

type Start = { what: "dataset" | "job" | "dataProductId"; value: string };

function startOf(query: URLSearchParams): Start | null {
  for (const what of ["dataProductId", "dataset", "job"] as const) {
    const value = query.get(what);
    if (value) return { what, value };
  }
  return null;
}

const WORDS: Record<Start["what"], string> = { dataProductId: "data product", dataset: "dataset", job: "job" };

export function LineagePage() {
  const loc = useLocation();
  const start = startOf(loc.query);
  const depth = DEPTHS.includes(loc.query.get("depth") ?? "") ? loc.query.get("depth")! : "2";
  const graph = useLoad(
    () => (start ? get<LineageGraph>(withQuery("/api/v1/lineage/graph", { [start.what]: start.value, depth })) : Promise.resolve(undefined)),
    [start?.what, start?.value, depth],
  );
  const go = (next: Start, d = depth) => navigate(`/lineage?${new URLSearchParams({ [next.what]: next.value, depth: d }).toString()}`);
  const title = start ? `Lineage of ${start.value}` : "Lineage";
  return (
    <>
      <PageHeader title={title} kicker={start?.what === "dataProductId" ? <a href={pagePath("dataproducts", start.value)}>Data product {start.value}</a> : "Lineage"}>
        <p class="lead">
          Jobs and datasets as pipelines report them, around one {start ? WORDS[start.what] : "dataset, job or data product"}; data flows from left to right.
        </p>
      </PageHeader>
      <StartForm key={`${start?.what}:${start?.value}`} start={start} depth={depth} onGo={go} />
      {start && (
        <>
          <p class="lineage-legend" aria-hidden="true">
            <span class="job">Job</span>
            <span class="dataset">Dataset</span>
            <span class="port">Output port of a data product</span>
          </p>
          <ErrorBox error={graph.error} />
          {graph.loading && !graph.data && <Loading what="Loading lineage" />}
          {graph.data && graph.data.truncated && (
            <div class="alert warn" role="status">
              The graph reached its size limit and was cut there: choose fewer steps, or start from a node further in.
            </div>
          )}
          {graph.data && graph.data.edges.length === 0 && <Empty>No lineage has been reported around this {WORDS[start.what]} yet.</Empty>}
          {graph.data && graph.data.edges.length > 0 && (
            <LineageGraphView
              graph={graph.data}
              startIds={startNodes(graph.data, { dataProductId: start.what === "dataProductId" ? start.value : undefined, id: `${start.what}:${start.value}` })}
              label={`Lineage graph of ${start.value}`}
            />
          )}
        </>
      )}
    </>
  );
}

function StartForm({ start, depth, onGo }: { start: Start | null; depth: string; onGo: (start: Start, depth?: string) => void }) {
  const [what, setWhat] = useState<Start["what"]>(start?.what ?? "dataset");
  const [value, setValue] = useState(start?.value ?? "");
  return (
    <form
      class="inline-form"
      aria-label="Starting point"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) onGo({ what, value: value.trim() });
      }}
    >
      <Field label="Start at" id="lineage-what">
        <select id="lineage-what" value={what} onChange={(e) => setWhat(e.currentTarget.value as Start["what"])}>
          <option value="dataset">Dataset</option>
          <option value="job">Job</option>
          <option value="dataProductId">Data product</option>
        </select>
      </Field>
      <Field label="Name" id="lineage-value" hint={what === "dataProductId" ? "The data product's id." : "<namespace>/<name>, e.g. postgres://db:5432/shop.public.orders"}>
        <input id="lineage-value" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      </Field>
      <Field label="Steps each way" id="lineage-depth">
        <select id="lineage-depth" value={depth} onChange={(e) => start && onGo(start, e.currentTarget.value)}>
          {DEPTHS.map((d) => (
            <option key={d}>{d}</option>
          ))}
        </select>
      </Field>
      <button type="submit" class="primary">
        Show
      </button>
    </form>
  );
}
