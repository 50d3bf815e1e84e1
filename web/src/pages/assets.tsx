import { pagePath, type Asset } from "../api.js";
import { Badge, Empty, PageHeader, Table } from "../ui.js";
import { TeamLink } from "../components/catalog-links.js";
import { CatalogList, LinksSection, NameCell, ReadOne, TagLinks, ValuesSection } from "../components/catalog-parts.js";
import { CatalogNav } from "../components/section-nav.js";
import { Facts, Fact, IdFact, OwnerFact } from "../components/facts.js";

/** Assets (docs/product.md §8): what data platforms sync, shown as they sent it, with the tags assigned in Steward. */

type Column = NonNullable<Asset["columns"]>[number];

export function AssetList() {
  return (
    <CatalogList<Asset>
      kind="assets"
      title="Assets"
      lead="Tables, views, topics and files that data platforms sync into Steward."
      empty="No assets yet. Data platforms sync them through the API."
      columns={["Asset", "Type", "Source", "Owner"]}
      row={(a, teams) => (
        <>
          <NameCell kind="assets" id={a.id} name={a.info?.name} description={a.info?.description} />
          <td data-label="Type">{a.info?.type ?? <span class="muted">—</span>}</td>
          <td data-label="Source">{a.info?.source ?? <span class="muted">—</span>}</td>
          <td data-label="Owner">
            <TeamLink teams={teams} id={a.info?.owner} />
          </td>
        </>
      )}
    />
  );
}

/** Columns with their nested fields (`properties`, `items`) as dotted names, one row each. */
function flatten(columns: Column[] | undefined, prefix = ""): Array<{ name: string; column: Column }> {
  const rows: Array<{ name: string; column: Column }> = [];
  for (const column of columns ?? []) {
    const name = prefix + column.name;
    rows.push({ name, column });
    rows.push(...flatten(column.properties as Column[] | undefined, `${name}.`));
    const items = column.items as Column | undefined;
    if (items && typeof items === "object" && typeof items.name === "string") rows.push(...flatten([items], `${name}[].`));
  }
  return rows;
}

export function AssetPage({ id }: { id: string }) {
  return (
    <ReadOne<Asset> kind="assets" id={id}>
      {(a, teams) => {
        const info = a.info ?? {};
        const columns = flatten(a.columns);
        return (
          <>
            <CatalogNav current="assets" />
            <PageHeader title={info.name || a.id} kicker={<a href="/assets">Assets</a>}>
              {info.description && <p class="lead">{info.description}</p>}
            </PageHeader>
            <Facts>
              <IdFact id={a.id} />
              <Fact label="Type">{info.type}</Fact>
              <Fact label="Source">{info.source}</Fact>
              <Fact label="Id in the source">{info.sourceId && <code>{info.sourceId}</code>}</Fact>
              <Fact label="Status">{info.status && <Badge>{info.status}</Badge>}</Fact>
              <Fact label="Version">{info.version}</Fact>
              <OwnerFact teams={teams} owner={info.owner} />
              <Fact label="In the source">{info.sourceUrl && /^https?:\/\//i.test(info.sourceUrl) ? <a href={info.sourceUrl} rel="noopener noreferrer">Open</a> : info.sourceUrl}</Fact>
            </Facts>
            <section aria-labelledby="assigned-tags">
              <h2 id="assigned-tags">Assigned tags</h2>
              <TagLinks tags={a.assignedTags} />
              {a.tags && a.tags.length > 0 && (
                <div class="row">
                  <span class="muted">Tags from the source:</span> <TagLinks tags={a.tags} />
                </div>
              )}
            </section>
            <section aria-labelledby="columns">
              <h2 id="columns">Columns</h2>
              {columns.length === 0 ? (
                <Empty>The source sent no columns.</Empty>
              ) : (
                <Table columns={["Column", "Type", "Description", "Constraints"]} caption="Columns of the asset">
                  {columns.map(({ name, column }) => (
                    <tr key={name}>
                      <td>
                        <code>{name}</code>
                      </td>
                      <td data-label="Type">
                        <code>{column.type}</code>
                      </td>
                      <td data-label="Description">{column.description ?? <span class="muted">—</span>}</td>
                      <td data-label="Constraints">
                        {[column.primaryKey && "primary key", column.required && "required", column.unique && "unique"].filter(Boolean).join(", ") || <span class="muted">—</span>}
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
            </section>
            {a.relationships && a.relationships.length > 0 && (
              <section aria-labelledby="relationships">
                <h2 id="relationships">Related assets</h2>
                <ul class="plain-list">
                  {a.relationships.map((r, i) => (
                    <li key={i}>
                      {r.relationshipType ?? "related"}: {r.assetId ? <a href={pagePath("assets", r.assetId)}>{r.assetId}</a> : <span class="muted">no asset named</span>}
                    </li>
                  ))}
                </ul>
              </section>
            )}
            <LinksSection links={a.links} />
            <ValuesSection title="Custom properties" id="custom" values={a.custom ?? a.properties} />
          </>
        );
      }}
    </ReadOne>
  );
}
