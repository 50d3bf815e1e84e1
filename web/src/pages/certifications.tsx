import { enc, get, pagePath, type Certification, type ClassificationScheme } from "../api.js";
import { Badge, Empty, ErrorBox, Loading, PageHeader, Table, useLoad } from "../ui.js";
import { Facts, Fact, IdFact } from "../components/facts.js";
import { GovernanceNav } from "../components/section-nav.js";
import { ListTable } from "../components/list-parts.js";

/** Classification schemes and certifications (docs/policies.md). */

export function ClassificationSchemeList() {
  const schemes = useLoad(() => get<ClassificationScheme[]>("/api/classification-schemes"), []);
  return (
    <>
      <GovernanceNav current="classification-schemes" />
      <PageHeader title="Classification schemes">
        <p class="lead">Ordered tiers that classify data; the default scheme fills the standard classification field.</p>
      </PageHeader>
      <ErrorBox error={schemes.error} />
      {schemes.loading && !schemes.data ? (
        <Loading />
      ) : schemes.data?.length === 0 ? (
        <Empty>No classification schemes yet.</Empty>
      ) : (
        schemes.data?.map((s) => (
          <section key={s.id} aria-labelledby={`scheme-${s.id}`}>
            <h2 id={`scheme-${s.id}`}>
              <a href={pagePath("classification-schemes", s.id)}>{s.name}</a> {s.customProperty === "classification" && <Badge tone="ok">default</Badge>}
            </h2>
            {s.description && <p>{s.description}</p>}
            <Tiers scheme={s} />
          </section>
        ))
      )}
    </>
  );
}

function Tiers({ scheme }: { scheme: ClassificationScheme }) {
  return (
    <Table columns={["Tier", "Level", "Description"]} caption={`Tiers of ${scheme.name}`}>
      {(scheme.classifications ?? []).map((c) => (
        <tr key={c.externalId}>
          <td>
            {c.name} <code class="sub">{c.externalId}</code>
          </td>
          <td data-label="Level">{c.level ?? "—"}</td>
          <td data-label="Description">{c.description ?? ""}</td>
        </tr>
      ))}
    </Table>
  );
}

export function ClassificationSchemePage({ id }: { id: string }) {
  const scheme = useLoad(() => get<ClassificationScheme>(`/api/classification-schemes/${enc(id)}`), [id]);
  if (scheme.error) return <ErrorBox error={scheme.error} />;
  if (!scheme.data) return <Loading />;
  const s = scheme.data;
  return (
    <>
      <GovernanceNav current="classification-schemes" />
      <PageHeader title={s.name} kicker={<a href="/classification-schemes">Classification schemes</a>}>
        {s.description && <p class="lead">{s.description}</p>}
      </PageHeader>
      <Facts>
        <IdFact id={s.id} />
        <Fact label="Written to">{s.customProperty ?? `classification.${s.id}`}</Fact>
        <Fact label="Default">{s.customProperty === "classification" ? "yes: the standard classification field" : undefined}</Fact>
      </Facts>
      <Tiers scheme={s} />
    </>
  );
}

export function CertificationPage({ id }: { id: string }) {
  const certification = useLoad(() => get<Certification>(`/api/certifications/${enc(id)}`), [id]);
  if (certification.error) return <ErrorBox error={certification.error} />;
  if (!certification.data) return <Loading />;
  const c = certification.data;
  return (
    <>
      <GovernanceNav current="certifications" />
      <PageHeader title={c.name} kicker={<a href="/certifications">Certifications</a>}>
        {c.description && <p class="lead">{c.description}</p>}
      </PageHeader>
      <Facts>
        <IdFact id={c.id} />
        <Fact label="Tag">
          <code>{c.tag}</code>
        </Fact>
        <Fact label="Assigned by">{c.restricted ? "the organization only (restricted)" : "the product's team"}</Fact>
        <Fact label="Criteria">{c.criteria}</Fact>
      </Facts>
    </>
  );
}

export function CertificationList() {
  const certifications = useLoad(() => get<Certification[]>("/api/certifications"), []);
  return (
    <>
      <GovernanceNav current="certifications" />
      <PageHeader title="Certifications">
        <p class="lead">Quality levels a data product holds by carrying their tag. Restricted ones are assigned by the organization only.</p>
      </PageHeader>
      <ListTable
        list={{ ...certifications, data: certifications.data && [...certifications.data].sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity)) }}
        empty="No certifications yet."
        columns={["Certification", "Tag", "Criteria"]}
        caption="Certifications"
        row={(c) => (
          <tr key={c.id}>
            <td>
              <a class="strong" href={pagePath("certifications", c.id)}>
                {c.name}
              </a>{" "}
              {c.restricted && <Badge tone="warn">restricted</Badge>}
              {c.description && <div class="sub">{c.description}</div>}
            </td>
            <td data-label="Tag">
              <code>{c.tag}</code>
            </td>
            <td data-label="Criteria">{c.criteria ?? ""}</td>
          </tr>
        )}
      />
    </>
  );
}
