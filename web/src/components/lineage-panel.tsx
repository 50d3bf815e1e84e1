import { get, pagePath, withQuery, type LineageGraph, type LineageNode, type LineageViolation } from "../api.js";
import { lineageHref, sides, startNodes, type Side } from "../lineage.js";
import { Empty, ErrorBox, Loading, Table, useLoad, When } from "../ui.js";

/**
 * A data product's lineage and reads without an agreement, for its page (docs/lineage.md, "In the
 * web app"): what flows into its output ports and what flows out of them, from the graph around
 * the product, and the runs that read its ports without an access.
 */

/** How many job steps the product page looks each way. */
const PAGE_DEPTH = 2;

function JobLink({ job }: { job: { namespace: string; name: string } }) {
  return (
    <>
      <a href={lineageHref({ job })}>{job.name}</a>
      <div class="sub">{job.namespace}</div>
    </>
  );
}

function SideList({ title, side, none }: { title: string; side: Side; none: string }) {
  const id = `lineage-${title.toLowerCase()}`;
  return (
    <section class="card" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {side.products.length === 0 && side.jobs.length === 0 && <p class="muted">{none}</p>}
      {side.products.length > 0 && (
        <>
          <h4>Data products</h4>
          <ul aria-label={`${title} data products`}>
            {side.products.map((p) => (
              <li key={p.dataProductId}>
                <a href={pagePath("dataproducts", p.dataProductId)}>{p.dataProductId}</a>
                {p.outputPortIds.length > 0 && <span class="muted"> · {p.outputPortIds.join(", ")}</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {side.jobs.length > 0 && (
        <>
          <h4>Jobs</h4>
          <ul aria-label={`${title} jobs`}>
            {side.jobs.map((j: LineageNode) => (
              <li key={j.id}>
                <JobLink job={j} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

export function LineagePanel({ productId }: { productId: string }) {
  const graph = useLoad(() => get<LineageGraph>(withQuery("/api/v1/lineage/graph", { dataProductId: productId, depth: String(PAGE_DEPTH) })), [productId]);
  const view = lineageHref({ dataProductId: productId });
  return (
    <section aria-labelledby="lineage">
      <h2 id="lineage">Lineage</h2>
      <ErrorBox error={graph.error} />
      {graph.loading && !graph.data && <Loading what="Loading lineage" />}
      {graph.data && <Sides graph={graph.data} productId={productId} view={view} />}
    </section>
  );
}

function Sides({ graph, productId, view }: { graph: LineageGraph; productId: string; view: string }) {
  const start = startNodes(graph, { dataProductId: productId });
  if (start.size === 0) {
    return <Empty>No pipeline has reported reading or writing this data product's output ports yet. Pipelines report runs as OpenLineage events to /api/v1/lineage.</Empty>;
  }
  const { upstream, downstream } = sides(graph, start, productId);
  return (
    <>
      <div class="lineage-sides">
        <SideList title="Upstream" side={upstream} none="Nothing reported flows into its output ports." />
        <SideList title="Downstream" side={downstream} none="Nothing reported reads its output ports." />
      </div>
      <p>
        {graph.truncated && <span class="muted">The graph was cut at its size limit; not everything is listed. </span>}
        <a href={view}>Open the lineage view</a>
      </p>
    </>
  );
}

/** The reads of this product's ports by runs of other products without an active access, newest first. */
export function ReadsWithoutAgreement({ productId }: { productId: string }) {
  const reads = useLoad(() => get<LineageViolation[]>(withQuery("/api/v1/lineage/violations", { dataProductId: productId })), [productId]);
  return (
    <section aria-labelledby="reads-without-agreement">
      <h2 id="reads-without-agreement">Reads without an agreement</h2>
      <ErrorBox error={reads.error} />
      {reads.loading && !reads.data && <Loading />}
      {reads.data && reads.data.length === 0 && <Empty>No pipeline has read this data product's output ports without an agreement.</Empty>}
      {reads.data && reads.data.length > 0 && (
        <Table columns={["Day", "Job", "Output port", "Consumer", ""]} caption="Reads without an agreement">
          {reads.data.map((r) => (
            <tr key={`${r.day} ${r.job.namespace} ${r.job.name} ${r.outputPortId}`}>
              <td class="dates" data-label="Day">
                <When value={r.day} />
              </td>
              <td data-label="Job">
                <JobLink job={r.job} />
              </td>
              <td data-label="Output port">
                <code>{r.outputPortId}</code>
                <div class="sub" title={`${r.dataset.namespace}/${r.dataset.name}`}>
                  {r.dataset.name}
                </div>
              </td>
              <td data-label="Consumer">
                <a href={pagePath("dataproducts", r.consumerDataProductId)}>{r.consumerDataProductId}</a>
                {r.consumerTeamId && (
                  <div class="sub">
                    <a href={pagePath("teams", r.consumerTeamId)}>{r.consumerTeamId}</a>
                  </div>
                )}
              </td>
              <td class="row-actions">
                <a href={lineageHref({ job: r.job })}>
                  Lineage<span class="visually-hidden"> of {r.job.name}</span>
                </a>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
