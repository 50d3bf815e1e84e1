import { useState } from "preact/hooks";
import { enc, get, withQuery, type ContractView, type DataContract, type Team } from "../api.js";
import { contractSummary, schemaList } from "../documents.js";
import { canActFor, useSession } from "../session.js";
import { DeleteDialog } from "../dialogs.js";
import { Badge, CatalogFilters, Empty, ErrorBox, Loading, PageHeader, useDebounced, useLoad } from "../ui.js";
import { ContractHistory } from "../components/contract-history.js";
import { Promises, useLatestChecks, ViewModels } from "../components/contract-view.js";
import { canCreate, TeamLink, useUrlFilters } from "../components/catalog-links.js";
import { Fact, Facts, IdFact } from "../components/facts.js";
import { EditAndDelete, ListTable, NewButton } from "../components/list-parts.js";
import { NameCell } from "../components/catalog-parts.js";

const FILTERS = ["q", "teamId"] as const;

export function DataContractList() {
  const { session } = useSession();
  const [filters, setFilter] = useUrlFilters(FILTERS);
  const query = useDebounced(filters.q);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const contracts = useLoad(() => get<DataContract[]>(withQuery("/api/datacontracts", { q: query.trim(), teamId: filters.teamId })), [query, filters.teamId]);
  return (
    <>
      <PageHeader
        title="Data contracts"
        actions={
          canCreate(session) && <NewButton href="/datacontracts/new">New data contract</NewButton>
        }
      >
        <p class="lead">Agreements on the data behind output ports: schemas, terms and quality.</p>
      </PageHeader>
      <CatalogFilters q={filters.q} onQ={(v) => setFilter("q", v)} teamId={filters.teamId} onTeamId={(v) => setFilter("teamId", v)} teams={teams.data} />
      <ListTable
        list={contracts}
        empty={filters.q || filters.teamId ? "No data contract matches these filters." : "No data contracts yet."}
        columns={["Title", "Version", "Owner", "Format", "Status"]}
        caption="Data contracts"
        row={(c) => {
          const s = contractSummary(c);
          return (
            <tr key={c.id}>
              <NameCell kind="datacontracts" id={c.id} name={s.title} />
              <td data-label="Version">{s.version ?? <span class="muted">—</span>}</td>
              <td data-label="Owner">
                <TeamLink teams={teams.data} id={s.owner} />
              </td>
              <td data-label="Format">
                {s.format === "odcs" ? (
                  <Badge tone="info">ODCS</Badge>
                ) : (
                  schemaList(c).map((x, i) => (
                    <Badge key={i} tone="info">
                      {x.type}
                    </Badge>
                  ))
                )}
              </td>
              <td data-label="Status">{s.status ? <Badge>{s.status}</Badge> : <span class="muted">—</span>}</td>
            </tr>
          );
        }}
      />
    </>
  );
}

export function DataContractPage({ id }: { id: string }) {
  const { session } = useSession();
  const contract = useLoad(() => get<DataContract>(`/api/datacontracts/${enc(id)}`), [id]);
  const view = useLoad(() => get<ContractView>(`/api/datacontracts/${enc(id)}/view`), [id]);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const checks = useLatestChecks(id);
  const [deleting, setDeleting] = useState(false);
  if (contract.loading) return <Loading />;
  if (!contract.data) return <ErrorBox error={contract.error} />;
  const c = contract.data;
  const s = contractSummary(c);
  const v = view.data;
  const provider = s.format === "dcs" ? c.provider : undefined;
  return (
    <>
      <PageHeader
        title={s.title}
        kicker={<a href="/datacontracts">Data contracts</a>}
        actions={
          <>
            <a class="button" href={`/api/datacontracts/${enc(c.id)}/datacontract.yaml`} download={`${c.id}.yaml`}>
              Download YAML
            </a>
            {canActFor(session, s.owner) && <EditAndDelete editHref={`/datacontracts/${enc(c.id)}/edit`} onDelete={() => setDeleting(true)} />}
          </>
        }
      >
        {s.description && <p class="lead">{s.description}</p>}
      </PageHeader>
      <Facts>
        <IdFact id={c.id} />
        <Fact label="Version">{s.version ?? "—"}</Fact>
        <Fact label="Owner">
          <TeamLink teams={teams.data} id={s.owner} />
        </Fact>
        <Fact label="Status">{s.status ? <Badge>{s.status}</Badge> : "—"}</Fact>
        <Fact label="Format">{v ? `${v.formatLabel}${v.formatVersion ? ` (${v.formatVersion})` : ""}` : s.format === "odcs" ? "Open Data Contract Standard" : "Data Contract Specification"}</Fact>
        <Fact label="Domain">{v?.domain}</Fact>
        <Fact label="Data product">{v?.dataProduct}</Fact>
        <Fact label="Provided by">
          {provider?.dataProductId && (
            <>
              <a href={`/dataproducts/${enc(provider.dataProductId)}`}>{provider.dataProductId}</a>
              {provider.outputPortId && <span class="muted"> · {provider.outputPortId}</span>}
            </>
          )}
        </Fact>
      </Facts>
      <ErrorBox error={view.error} title="What the contract promises could not be read" />
      {v && <Promises view={v} />}
      <section aria-labelledby="models">
        <h2 id="models">Models</h2>
        {view.loading && <Loading />}
        {v?.schemas.map((schema, i) => (
          <div key={i} class="schema-group">
            {v.format === "dcs-0.9" && (
              <p class="muted">
                {schema.type}
                {schema.detectedType !== schema.type ? ` (read as ${schema.detectedType})` : ""} schema, normalized.
              </p>
            )}
            <ViewModels models={schema.models} checks={checks} />
          </div>
        ))}
        {v && v.schemas.length === 0 && <Empty>This contract defines no models yet.</Empty>}
        {v && v.definitions.length > 0 && (
          <details class="definitions">
            <summary>Shared types ({v.definitions.filter((d) => d.depth === 0).length}), referred to with →</summary>
            <ViewModels models={[{ name: "definitions", kind: "types", rules: [], fields: v.definitions }]} />
          </details>
        )}
      </section>
      <ContractHistory id={c.id} />
      <DeleteDialog open={deleting} onClose={() => setDeleting(false)} path={`/api/datacontracts/${enc(c.id)}`} name={s.title} noun="data contract" then="/datacontracts">
        A contract that an output port names, or under which an access was granted, cannot be deleted.
      </DeleteDialog>
    </>
  );
}
