import type { Definition, SourceSystem, Tag } from "../api.js";
import { Badge, PageHeader } from "../ui.js";
import { TeamLink } from "../components/catalog-links.js";
import { CatalogList, LinksSection, NameCell, ReadOne, TagLinks, ValuesSection } from "../components/catalog-parts.js";
import { CatalogNav } from "../components/section-nav.js";
import { Facts, Fact, IdFact, OwnerFact } from "../components/facts.js";

/** Source systems, definitions and tags (docs/product.md §8): read views of what tools keep through the API. */

const dash = <span class="muted">—</span>;

export function SourceSystemList() {
  return (
    <CatalogList<SourceSystem>
      kind="sourcesystems"
      title="Source systems"
      lead="The operational systems that record business transactions and feed data products."
      empty="No source systems yet."
      columns={["Source system", "Owner"]}
      row={(s, teams) => (
        <>
          <NameCell kind="sourcesystems" id={s.id} name={s.name} description={s.description} />
          <td data-label="Owner">
            <TeamLink teams={teams} id={s.owner} />
          </td>
        </>
      )}
    />
  );
}

export function SourceSystemPage({ id }: { id: string }) {
  return (
    <ReadOne<SourceSystem> kind="sourcesystems" id={id}>
      {(s, teams) => (
        <>
          <CatalogNav current="sourcesystems" />
          <PageHeader title={s.name || s.id} kicker={<a href="/sourcesystems">Source systems</a>}>
            {s.description && <p class="lead">{s.description}</p>}
          </PageHeader>
          <Facts>
            <IdFact id={s.id} />
            <OwnerFact teams={teams} owner={s.owner} />
            <Fact label="Tags">{s.tags && s.tags.length > 0 ? <TagLinks tags={s.tags} /> : undefined}</Fact>
          </Facts>
          <LinksSection links={s.links} />
          <ValuesSection title="Custom properties" id="custom" values={s.custom} />
        </>
      )}
    </ReadOne>
  );
}

export function DefinitionList() {
  return (
    <CatalogList<Definition>
      kind="definitions"
      title="Definitions"
      lead="Business terms with their logical type and constraints, for data contracts to reuse."
      empty="No definitions yet."
      columns={["Definition", "Type", "Owner"]}
      row={(d, teams) => (
        <>
          <NameCell kind="definitions" id={d.id} name={d.title} description={d.description} />
          <td data-label="Type">{d.type ?? dash}</td>
          <td data-label="Owner">
            <TeamLink teams={teams} id={d.owner} />
          </td>
        </>
      )}
    />
  );
}

/** A definition's constraints in words, e.g. "at most 100 characters". */
function constraints(d: Definition): string[] {
  const said: string[] = [];
  if (d.minLength !== undefined) said.push(`at least ${d.minLength} characters`);
  if (d.maxLength !== undefined) said.push(`at most ${d.maxLength} characters`);
  if (d.minimum !== undefined) said.push(`at least ${d.minimum}`);
  if (d.maximum !== undefined) said.push(`at most ${d.maximum}`);
  if (d.exclusiveMinimum !== undefined) said.push(`more than ${d.exclusiveMinimum}`);
  if (d.exclusiveMaximum !== undefined) said.push(`less than ${d.exclusiveMaximum}`);
  if (d.format) said.push(`format ${d.format}`);
  if (d.pattern) said.push(`matches ${d.pattern}`);
  if (d.enum?.length) said.push(`one of ${d.enum.join(", ")}`);
  return said;
}

export function DefinitionPage({ id }: { id: string }) {
  return (
    <ReadOne<Definition> kind="definitions" id={id}>
      {(d, teams) => {
        const rules = constraints(d);
        return (
          <>
            <CatalogNav current="definitions" />
            <PageHeader title={d.title || d.id} kicker={<a href="/definitions">Definitions</a>}>
              {d.description && <p class="lead">{d.description}</p>}
            </PageHeader>
            <Facts>
              <IdFact id={d.id} />
              <OwnerFact teams={teams} owner={d.owner} />
              <Fact label="Type">{d.type && <code>{d.type}</code>}</Fact>
              <Fact label="Example">{d.example && <code>{d.example}</code>}</Fact>
              <Fact label="Personal data">{d.pii === undefined ? undefined : d.pii ? <Badge tone="warn">PII</Badge> : "no"}</Fact>
              <Fact label="Classification">{d.classification}</Fact>
              <Fact label="Tags">{d.tags && d.tags.length > 0 ? <TagLinks tags={d.tags} /> : undefined}</Fact>
            </Facts>
            <section aria-labelledby="constraints">
              <h2 id="constraints">Constraints</h2>
              {rules.length === 0 ? (
                <p class="muted">None.</p>
              ) : (
                <ul class="plain-list">
                  {rules.map((r) => (
                    <li key={r}>{r}</li>
                  ))}
                </ul>
              )}
            </section>
          </>
        );
      }}
    </ReadOne>
  );
}

/** The owner is top-level or under `info`, as the reference product allows. */
const tagOwner = (t: Tag): string | undefined => t.owner ?? t.info?.owner;

export function TagList() {
  return (
    <CatalogList<Tag>
      kind="tags"
      title="Tags"
      lead="Labels for assets and other resources; a / in a tag's id places it under another."
      empty="No tags yet."
      columns={["Tag", "Owner"]}
      row={(t, teams) => (
        <>
          <NameCell kind="tags" id={t.id} description={t.info?.description} />
          <td data-label="Owner">
            <TeamLink teams={teams} id={tagOwner(t)} />
          </td>
        </>
      )}
    />
  );
}

export function TagPage({ id }: { id: string }) {
  return (
    <ReadOne<Tag> kind="tags" id={id}>
      {(t, teams) => {
        const parts = t.id.split("/");
        return (
          <>
            <CatalogNav current="tags" />
            <PageHeader title={t.id} kicker={<a href="/tags">Tags</a>}>
              {t.info?.description && <p class="lead">{t.info.description}</p>}
            </PageHeader>
            <Facts>
              <IdFact id={t.id} />
              <OwnerFact teams={teams} owner={tagOwner(t)} />
              <Fact label="Under">{parts.length > 1 ? <TagLinks tags={[parts.slice(0, -1).join("/")]} /> : undefined}</Fact>
            </Facts>
            <LinksSection links={t.links} />
            <ValuesSection title="Properties" id="properties" values={t.properties} />
          </>
        );
      }}
    </ReadOne>
  );
}
