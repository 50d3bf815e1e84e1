import { useState } from "preact/hooks";
import { enc, get, withQuery, type Access, type DataProduct, type Team } from "../api.js";
import { outputPorts, productSummary, type PortSummary } from "../documents.js";
import { canActFor, useSession } from "../session.js";
import { DeleteDialog } from "../dialogs.js";
import { Badge, CatalogFilters, Empty, ErrorBox, Field, Loading, PageHeader, useDebounced, useLoad } from "../ui.js";
import { AccessTable, RequestAccessDialog } from "../components/access-parts.js";
import { canCreate, TeamLink, useUrlFilters } from "../components/catalog-links.js";
import { Fact, Facts, IdFact } from "../components/facts.js";
import { EditAndDelete, ListTable, NewButton } from "../components/list-parts.js";
import { NameCell } from "../components/catalog-parts.js";
import { LineagePanel, ReadsWithoutAgreement } from "../components/lineage-panel.js";
import { UsagePanel, UsesWithoutAgreement } from "../components/usage-panel.js";
import { ProductCertifications } from "../components/product-certifications.js";

const STATUSES = ["proposed", "in development", "active", "deprecated", "retired"];
const FILTERS = ["q", "teamId", "status", "archetype"] as const;
/** The archetypes the editor suggests; the filter matches the stored value exactly. */
const ARCHETYPES = ["source-aligned", "aggregate", "consumer-aligned"];

/** A filter picked from a fixed list; the empty choice, "Any …", filters nothing. */
function ChoiceFilter(props: { label: string; id: string; value: string; choices: readonly string[]; onChange(value: string): void }) {
  return (
    <Field label={props.label} id={props.id}>
      <select id={props.id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">Any {props.label.toLowerCase()}</option>
        {props.choices.map((c) => (
          <option key={c}>{c}</option>
        ))}
      </select>
    </Field>
  );
}

export function DataProductList() {
  const { session } = useSession();
  const [filters, setFilter] = useUrlFilters(FILTERS);
  const query = useDebounced(filters.q);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const products = useLoad(
    () => get<DataProduct[]>(withQuery("/api/dataproducts", { q: query.trim(), teamId: filters.teamId, status: filters.status, archetype: filters.archetype })),
    [query, filters.teamId, filters.status, filters.archetype],
  );
  const filtered = FILTERS.some((k) => filters[k] !== "");
  return (
    <>
      <PageHeader
        title="Data products"
        actions={
          canCreate(session) && <NewButton href="/dataproducts/new">New data product</NewButton>
        }
      >
        <p class="lead">What the organization's teams offer, and through which output ports.</p>
      </PageHeader>
      <CatalogFilters q={filters.q} onQ={(v) => setFilter("q", v)} teamId={filters.teamId} onTeamId={(v) => setFilter("teamId", v)} teams={teams.data}>
        <ChoiceFilter label="Status" id="status" value={filters.status} choices={STATUSES} onChange={(v) => setFilter("status", v)} />
        <ChoiceFilter label="Archetype" id="archetype" value={filters.archetype} choices={ARCHETYPES} onChange={(v) => setFilter("archetype", v)} />
      </CatalogFilters>
      <ListTable
        list={products}
        empty={
          filtered ? (
            "No data product matches these filters."
          ) : canCreate(session) ? (
            <>
              No data products yet. <a href="/dataproducts/new">Create the first one</a> — with a form, or by pasting or importing its YAML.
            </>
          ) : (
            "No data products yet. The teams of the organization create them."
          )
        }
        columns={["Title", "Owner", "Status", "Output ports"]}
        caption="Data products"
        busy
        row={(p) => {
          const s = productSummary(p);
          return (
            <tr key={p.id}>
              <NameCell kind="dataproducts" id={p.id} name={s.title} description={s.description} />
              <td data-label="Owner">
                <TeamLink teams={teams.data} id={s.owner} />
              </td>
              <td data-label="Status">{s.status ? <Badge>{s.status}</Badge> : <span class="muted">—</span>}</td>
              <td class="num" data-label="Output ports">
                {outputPorts(p).length}
              </td>
            </tr>
          );
        }}
      />
    </>
  );
}

export function DataProductPage({ id }: { id: string }) {
  const { session } = useSession();
  const product = useLoad(() => get<DataProduct>(`/api/dataproducts/${enc(id)}`), [id]);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const accesses = useLoad(() => get<Access[]>(withQuery("/api/access", { providerDataProductId: id })), [id]);
  const [requesting, setRequesting] = useState<PortSummary | null>(null);
  const [deleting, setDeleting] = useState(false);
  if (product.loading) return <Loading />;
  if (!product.data) return <ErrorBox error={product.error} />;
  const p = product.data;
  const s = productSummary(p);
  const ports = outputPorts(p);
  const mine = canActFor(session, s.owner);
  // Access requests for this product: the list filter is the server's; keep only this product's in case it is not applied.
  const requests = accesses.data?.filter((a) => a.provider.dataProductId === p.id);
  return (
    <>
      <PageHeader
        title={s.title}
        kicker={<a href="/dataproducts">Data products</a>}
        actions={
          mine && <EditAndDelete editHref={`/dataproducts/${enc(p.id)}/edit`} onDelete={() => setDeleting(true)} />
        }
      >
        {s.description && <p class="lead">{s.description}</p>}
        <ProductCertifications tags={Array.isArray(p.tags) ? p.tags.filter((t): t is string => typeof t === "string") : []} />
      </PageHeader>
      <Facts>
        <IdFact id={p.id} />
        <Fact label="Owner">
          <TeamLink teams={teams.data} id={s.owner} />
        </Fact>
        <Fact label="Status">{s.status ? <Badge>{s.status}</Badge> : "—"}</Fact>
        <Fact label="Archetype">{s.format === "dps" && p.info?.archetype}</Fact>
        <Fact label="Maturity">{s.format === "dps" && p.info?.maturity}</Fact>
        <Fact label="Format">{s.format === "odps" ? "Open Data Product Standard" : "Data Product Specification"}</Fact>
        <Fact label="Tags">
          {s.tags.length > 0 &&
            s.tags.map((t) => (
              <span class="tag" key={t}>
                {t}
              </span>
            ))}
        </Fact>
      </Facts>

      <section aria-labelledby="ports">
        <h2 id="ports">Output ports</h2>
        {ports.length === 0 && <Empty>This data product has no output ports.</Empty>}
        <div class="cards">
          {ports.map((port) => (
            <article class="card" key={port.id} aria-labelledby={`port-${port.id}`}>
              <header class="card-header">
                <h3 id={`port-${port.id}`}>{port.name}</h3>
                <div class="badges">
                  {port.type && <Badge tone="info">{port.type}</Badge>}
                  {port.status && <Badge>{port.status}</Badge>}
                  {port.containsPii && <Badge tone="warn">contains PII</Badge>}
                  {port.autoApprove && <Badge tone="ok">auto-approve</Badge>}
                </div>
              </header>
              {port.description && <p>{port.description}</p>}
              <Facts look="compact">
                <IdFact label="Port id" id={port.id} />
                <Fact label="Data contract">{port.contractId ? <a href={`/datacontracts/${enc(port.contractId)}`}>{port.contractId}</a> : <span class="muted">none</span>}</Fact>
                {port.server &&
                  typeof port.server === "object" &&
                  Object.entries(port.server).map(([k, v]) => (
                    <Fact key={k} label={k}>
                      <code>{typeof v === "string" ? v : JSON.stringify(v)}</code>
                    </Fact>
                  ))}
              </Facts>
              <div class="card-actions">
                <button type="button" class="primary" onClick={() => setRequesting(port)}>
                  Request access
                  <span class="visually-hidden"> to {port.name}</span>
                </button>
              </div>
            </article>
          ))}
        </div>
      </section>

      <section aria-labelledby="requests">
        <h2 id="requests">Access requests</h2>
        {requests && requests.length === 0 && <Empty>Nobody has requested access yet.</Empty>}
        {requests && requests.length > 0 && <AccessTable accesses={requests} teams={teams.data} />}
      </section>
      <LineagePanel productId={p.id} />
      <ReadsWithoutAgreement productId={p.id} />
      <UsagePanel of="dataproducts" id={p.id!} />
      <UsesWithoutAgreement productId={p.id!} />
      <RequestAccessDialog product={p} port={requesting} teams={teams.data ?? []} onClose={() => setRequesting(null)} />
      <DeleteDialog open={deleting} onClose={() => setDeleting(false)} path={`/api/dataproducts/${enc(p.id)}`} name={s.title} noun="data product" then="/dataproducts">
        A data product with requested, approved or active access cannot be deleted.
      </DeleteDialog>
    </>
  );
}
