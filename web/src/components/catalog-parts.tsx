import type { ComponentChildren } from "preact";
import { enc, get, pagePath, withQuery, type PageKind, type Team } from "../api.js";
import { ErrorBox, Loading, PageHeader, Table, useDebounced, useLoad, CatalogFilters } from "../ui.js";
import { useUrlFilters } from "./catalog-links.js";
import { CatalogNav } from "./section-nav.js";
import { ListTable } from "./list-parts.js";

/**
 * What the read-only catalog pages share (docs/product.md §8: assets, source systems, definitions and
 * tags, which the platforms and tools that sync them edit through the API, not the web app).
 */

type Loose = Record<string, unknown>;

/** A list of one catalog kind with a search box and the owner-team filter. */
export function CatalogList<T extends { id: string }>(props: {
  kind: PageKind;
  title: string;
  lead: string;
  empty: string;
  columns: string[];
  row: (item: T, teams: Team[] | undefined) => ComponentChildren;
}) {
  const [filters, setFilter] = useUrlFilters(["q", "teamId"] as const);
  const query = useDebounced(filters.q);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const items = useLoad(() => get<T[]>(withQuery(`/api/${props.kind}`, { q: query.trim(), owner: filters.teamId })), [props.kind, query, filters.teamId]);
  const filtered = filters.q !== "" || filters.teamId !== "";
  return (
    <>
      <CatalogNav current={props.kind} />
      <PageHeader title={props.title}>
        <p class="lead">{props.lead}</p>
      </PageHeader>
      <CatalogFilters q={filters.q} onQ={(v) => setFilter("q", v)} teamId={filters.teamId} onTeamId={(v) => setFilter("teamId", v)} teams={teams.data} />
      <ListTable
        list={items}
        empty={filtered ? "Nothing matches these filters." : props.empty}
        columns={props.columns}
        caption={props.title}
        busy
        row={(item) => <tr key={item.id}>{props.row(item, teams.data)}</tr>}
      />
    </>
  );
}

/** The first cell of a list row: the resource's name linking to its page, with its id below. */
export function NameCell({ kind, id, name, description }: { kind: PageKind; id: string; name?: string; description?: string }) {
  return (
    <td>
      <a class="strong" href={pagePath(kind, id)}>
        {name || id}
      </a>
      <div class="sub">
        <code>{id}</code>
        {description && <span> · {description}</span>}
      </div>
    </td>
  );
}

/** Reads one resource for its page; the page itself renders once it is there. */
export function ReadOne<T>({ kind, id, children }: { kind: PageKind; id: string; children: (item: T, teams: Team[] | undefined) => ComponentChildren }) {
  const item = useLoad(() => get<T>(`/api/${kind}/${enc(id)}`), [kind, id]);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  if (item.loading && !item.data) return <Loading />;
  if (!item.data) return <ErrorBox error={item.error} />;
  return <>{children(item.data, teams.data)}</>;
}

/** Tags, each linking to its tag's page. */
export function TagLinks({ tags }: { tags: unknown }) {
  const list = Array.isArray(tags) ? tags.filter((t): t is string => typeof t === "string") : [];
  if (list.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="tag-links">
      {list.map((t) => (
        <li key={t}>
          <a class="badge neutral" href={pagePath("tags", t)}>
            {t}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** Named links (`links`), as links only when they are web addresses. */
export function LinksSection({ links }: { links: unknown }) {
  const entries = links && typeof links === "object" ? Object.entries(links as Loose) : [];
  if (entries.length === 0) return null;
  return (
    <section aria-labelledby="links">
      <h2 id="links">Links</h2>
      <ul class="plain-list">
        {entries.map(([name, url]) => (
          <li key={name}>
            {name}: {typeof url === "string" && /^https?:\/\//i.test(url) ? <a href={url} rel="noopener noreferrer">{url}</a> : <code>{String(url)}</code>}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Free-form members (`custom`, `properties`, a connector's state) as a table of names and values. */
export function ValuesSection({ title, id, values }: { title: string; id: string; values: unknown }) {
  const entries = values && typeof values === "object" ? Object.entries(values as Loose) : [];
  if (entries.length === 0) return null;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <Table columns={["Name", "Value"]} caption={title}>
        {entries.map(([name, value]) => (
          <tr key={name}>
            <td>
              <code>{name}</code>
            </td>
            <td data-label="Value">{typeof value === "string" ? value : <code class="value">{JSON.stringify(value)}</code>}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}
