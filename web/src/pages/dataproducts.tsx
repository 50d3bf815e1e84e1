import { useState } from "preact/hooks";
import { call, enc, get, withQuery, type Access, type DataProduct, type OutputPort, type Team } from "../api.js";
import { navigate } from "../router.js";
import { canActFor, useSession } from "../session.js";
import { Badge, CatalogFilters, Dialog, Empty, ErrorBox, Field, Loading, PageHeader, TeamOptions, useDebounced, useLoad, When, DialogFooter, Table } from "../ui.js";

export const teamName = (teams: Team[] | undefined, id: string | null | undefined) => (id ? (teams?.find((t) => t.id === id)?.name ?? id) : "—");

export function TeamLink({ teams, id }: { teams?: Team[]; id?: string | null }) {
  if (!id) return <span class="muted">—</span>;
  return <a href={`/teams/${enc(id)}`}>{teamName(teams, id)}</a>;
}

const STATUSES = ["proposed", "in development", "active", "deprecated", "retired"];

export function DataProductList() {
  const [q, setQ] = useState(new URLSearchParams(location.search).get("q") ?? "");
  const [teamId, setTeamId] = useState("");
  const [status, setStatus] = useState("");
  const query = useDebounced(q);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const products = useLoad(() => get<DataProduct[]>(withQuery("/api/dataproducts", { q: query.trim(), teamId, status })), [query, teamId, status]);
  const filtered = q !== "" || teamId !== "" || status !== "";
  return (
    <>
      <PageHeader title="Data products">
        <p class="lead">What the organization's teams offer, and through which output ports.</p>
      </PageHeader>
      <CatalogFilters q={q} onQ={setQ} teamId={teamId} onTeamId={setTeamId} teams={teams.data}>
        <Field label="Status" id="status">
          <select id="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
      </CatalogFilters>
      <ErrorBox error={products.error} />
      {products.loading && !products.data ? (
        <Loading />
      ) : products.data && products.data.length === 0 ? (
        <Empty>{filtered ? "No data product matches these filters." : "No data products yet. Teams publish them with PUT /api/dataproducts/{id}."}</Empty>
      ) : (
        <Table columns={["Title", "Owner", "Status", "Output ports"]} caption="Data products" busy={products.loading}>
          {products.data?.map((p) => (
            <tr key={p.id}>
              <td>
                <a href={`/dataproducts/${enc(p.id)}`} class="strong">
                  {p.info.title}
                </a>
                <div class="sub">
                  <code>{p.id}</code>
                  {p.info.description && <span> · {p.info.description}</span>}
                </div>
              </td>
              <td data-label="Owner">
                <TeamLink teams={teams.data} id={p.info.owner} />
              </td>
              <td data-label="Status">{p.info.status ? <Badge>{p.info.status}</Badge> : <span class="muted">—</span>}</td>
              <td class="num" data-label="Output ports">{p.outputPorts?.length ?? 0}</td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

export function DataProductPage({ id }: { id: string }) {
  const product = useLoad(() => get<DataProduct>(`/api/dataproducts/${enc(id)}`), [id]);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const accesses = useLoad(() => get<Access[]>(withQuery("/api/access", { providerDataProductId: id })), [id]);
  const [requesting, setRequesting] = useState<OutputPort | null>(null);
  if (product.loading) return <Loading />;
  if (!product.data) return <ErrorBox error={product.error} />;
  const p = product.data;
  return (
    <>
      <PageHeader title={p.info.title} kicker={<a href="/dataproducts">Data products</a>}>
        {p.info.description && <p class="lead">{p.info.description}</p>}
      </PageHeader>
      <dl class="facts">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{p.id}</code>
          </dd>
        </div>
        <div>
          <dt>Owner</dt>
          <dd>
            <TeamLink teams={teams.data} id={p.info.owner} />
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{p.info.status ? <Badge>{p.info.status}</Badge> : "—"}</dd>
        </div>
        {p.info.archetype && (
          <div>
            <dt>Archetype</dt>
            <dd>{p.info.archetype}</dd>
          </div>
        )}
        {p.info.maturity && (
          <div>
            <dt>Maturity</dt>
            <dd>{p.info.maturity}</dd>
          </div>
        )}
        {p.tags && p.tags.length > 0 && (
          <div>
            <dt>Tags</dt>
            <dd>{p.tags.map((t) => <span class="tag" key={t}>{t}</span>)}</dd>
          </div>
        )}
      </dl>

      <section aria-labelledby="ports">
        <h2 id="ports">Output ports</h2>
        {(p.outputPorts ?? []).length === 0 && <Empty>This data product has no output ports.</Empty>}
        <div class="cards">
          {(p.outputPorts ?? []).map((port) => (
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
              <dl class="facts compact">
                <div>
                  <dt>Port id</dt>
                  <dd>
                    <code>{port.id}</code>
                  </dd>
                </div>
                <div>
                  <dt>Data contract</dt>
                  <dd>{port.dataContractId ? <a href={`/datacontracts/${enc(port.dataContractId)}`}>{port.dataContractId}</a> : <span class="muted">none</span>}</dd>
                </div>
                {port.server &&
                  Object.entries(port.server).map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>
                        <code>{typeof v === "string" ? v : JSON.stringify(v)}</code>
                      </dd>
                    </div>
                  ))}
              </dl>
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
        {accesses.data && accesses.data.length === 0 && <Empty>Nobody has requested access yet.</Empty>}
        {accesses.data && accesses.data.length > 0 && <AccessTable accesses={accesses.data} teams={teams.data} />}
      </section>
      <RequestAccessDialog product={p} port={requesting} teams={teams.data ?? []} onClose={() => setRequesting(null)} />
    </>
  );
}

export function AccessTable({ accesses, teams, actions }: { accesses: Access[]; teams?: Team[]; actions?: (a: Access) => preact.ComponentChildren }) {
  return (
    <Table columns={["Purpose", "Output port", "Consumer", "Status", "Dates", "Provisioning", !!actions && ""]}>
      {accesses.map((a) => (
        <tr key={a.id}>
          <td>
            <a href={`/access/${enc(a.id)}`} class="strong">
              {a.info.purpose}
            </a>
          </td>
          <td data-label="Output port">
            <a href={`/dataproducts/${enc(a.provider.dataProductId)}`}>{a.provider.dataProductId}</a>
            <div class="sub nowrap">{a.provider.outputPortId}</div>
          </td>
          <td data-label="Consumer">
            <Consumer access={a} teams={teams} />
          </td>
          <td data-label="Status">
            <Badge>{a.info.status}</Badge> {a.info.active && <Badge tone="ok">active</Badge>}
          </td>
          <td class="dates" data-label="Dates">
            <When value={a.info.startDate} empty="now" /> → <When value={a.info.endDate} empty="open-ended" />
          </td>
          <td data-label="Provisioning">{a.provisioning ? <Badge>{a.provisioning.status}</Badge> : <span class="muted">not reported</span>}</td>
          {actions && <td class="row-actions">{actions(a)}</td>}
        </tr>
      ))}
    </Table>
  );
}

export function Consumer({ access, teams }: { access: Access; teams?: Team[] }) {
  const c = access.consumer;
  if (c.dataProductId) return <a href={`/dataproducts/${enc(c.dataProductId)}`}>{c.dataProductId}</a>;
  if (c.teamId) return <TeamLink teams={teams} id={c.teamId} />;
  return <span>{c.userId ?? "—"}</span>;
}

function RequestAccessDialog({ product, port, teams, onClose }: { product: DataProduct; port: OutputPort | null; teams: Team[]; onClose: () => void }) {
  const { session } = useSession();
  const mine = teams.filter((t) => canActFor(session, t.id) && t.id !== product.info.owner);
  const [kind, setKind] = useState<"team" | "dataProduct">("team");
  const [teamId, setTeamId] = useState("");
  const [dataProductId, setDataProductId] = useState("");
  const [purpose, setPurpose] = useState("");
  const [startDate, setStartDate] = useState("");
  const [endDate, setEndDate] = useState("");
  const [error, setError] = useState<unknown>();
  const products = useLoad(() => (port && kind === "dataProduct" ? get<DataProduct[]>("/api/dataproducts") : Promise.resolve([])), [port, kind]);
  const consumerProducts = (products.data ?? []).filter((p) => p.id !== product.id && canActFor(session, p.info.owner));
  const team = teamId || mine[0]?.id || "";
  const dp = dataProductId || consumerProducts[0]?.id || "";
  return (
    <Dialog open={port !== null} title={`Request access to ${port?.name ?? ""}`} onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const created = await call<Access>("POST", "/api/access", {
              info: { purpose, ...(startDate ? { startDate } : {}), ...(endDate ? { endDate } : {}) },
              provider: { dataProductId: product.id, outputPortId: port!.id },
              consumer: kind === "team" ? { teamId: team } : { dataProductId: dp },
            });
            onClose();
            navigate(`/access/${enc(created.id)}`);
          } catch (err) {
            setError(err);
          }
        }}
      >
        <div class="dialog-body">
          <p class="muted">
            {product.info.title} → {port?.name}. The owning team ({teamName(teams, product.info.owner)}) decides{port?.autoApprove ? "; this port approves requests automatically" : ""}.
          </p>
          <fieldset class="choice">
            <legend>Who will use the data?</legend>
            <label>
              <input type="radio" name="kind" value="team" checked={kind === "team"} onChange={() => setKind("team")} /> A team
            </label>
            <label>
              <input type="radio" name="kind" value="dataProduct" checked={kind === "dataProduct"} onChange={() => setKind("dataProduct")} /> A data product
            </label>
          </fieldset>
          {kind === "team" ? (
            <Field label="Consumer team" id="consumer-team">
              <select id="consumer-team" required value={team} onChange={(e) => setTeamId(e.currentTarget.value)}>
                {mine.length === 0 && <option value="">You act for no other team</option>}
                <TeamOptions teams={mine} />
              </select>
            </Field>
          ) : (
            <Field label="Consumer data product" id="consumer-product">
              <select id="consumer-product" required value={dp} onChange={(e) => setDataProductId(e.currentTarget.value)}>
                {consumerProducts.length === 0 && <option value="">No data product of your teams</option>}
                {consumerProducts.map((p) => (
                  <option value={p.id} key={p.id}>
                    {p.info.title}
                  </option>
                ))}
              </select>
            </Field>
          )}
          <Field label="Purpose" id="purpose" hint="Why you need the data; the providing team reads this.">
            <textarea id="purpose" required rows={3} value={purpose} onInput={(e) => setPurpose(e.currentTarget.value)} />
          </Field>
          <div class="row">
            <Field label="Start date (optional)" id="start" hint="Empty: as soon as approved.">
              <input id="start" type="date" value={startDate} onInput={(e) => setStartDate(e.currentTarget.value)} />
            </Field>
            <Field label="End date (optional)" id="end" hint="Empty: until canceled.">
              <input id="end" type="date" value={endDate} onInput={(e) => setEndDate(e.currentTarget.value)} />
            </Field>
          </div>
          <ErrorBox error={error} title="The request was not sent" />
        </div>
        <DialogFooter submit="Send request" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
