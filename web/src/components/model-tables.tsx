import type { ComponentChildren } from "preact";
import type { NormalizedField, NormalizedModel } from "../api.js";
import { Badge, Empty, Table } from "../ui.js";

/** A model of a schema as a card: its name, kind and description, then what `children` show of it. */
export function ModelCard({ model, children }: { model: { name: string; kind: string; description?: string }; children: ComponentChildren }) {
  return (
    <article class="model" aria-labelledby={`model-${model.name}`}>
      <header class="card-header">
        <h3 id={`model-${model.name}`}>{model.name}</h3>
        <Badge tone="info">{model.kind}</Badge>
      </header>
      {model.description && <p>{model.description}</p>}
      {children}
    </article>
  );
}

/** A model's fields with the fields nested in them, as rows named by their dotted path. */
function flatten(fields: NormalizedField[], prefix = "", depth = 0): Array<NormalizedField & { path: string; depth: number }> {
  const rows: Array<NormalizedField & { path: string; depth: number }> = [];
  for (const f of fields) {
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    rows.push({ ...f, path, depth });
    if (f.fields) rows.push(...flatten(f.fields, path, depth + 1));
    if (f.items?.fields) rows.push(...flatten(f.items.fields, `${path}[]`, depth + 1));
  }
  return rows;
}

/** The normalized models of a schema, as the schema check answers them: one table of fields each. */
export function ModelTables({ models }: { models: NormalizedModel[] }) {
  if (models.length === 0) return <Empty>This schema defines no models (custom schemas are not parsed).</Empty>;
  return (
    <>
      {models.map((m) => (
        <ModelCard key={m.name} model={m}>
          {m.tests && m.tests.length > 0 && (
            <p class="muted">
              Model tests: {m.tests.map((t) => <code class="test" key={t}>{t}</code>)}
            </p>
          )}
          <Table columns={["Field", "Type", "Required", "Description", "Tests"]} caption={`Fields of ${m.name}`} class="fields">
            {flatten(m.fields).map((f) => (
              <tr key={f.path}>
                <th scope="row" class={`field-name depth-${Math.min(f.depth, 4)}`}>
                  <code>{f.depth > 0 ? f.path : f.name}</code>
                </th>
                <td data-label="Type">
                  <span class="type">{f.type}</span>
                  {f.items && <span class="muted"> of {f.items.type}</span>}
                  {f.physicalType && f.physicalType.toLowerCase() !== f.type && <div class="sub">{f.physicalType}</div>}
                  {f.ref && <div class="sub">see definitions: {f.ref}</div>}
                </td>
                <td data-label="Required">{f.required ? <Badge tone="ok">required</Badge> : <span class="muted">optional</span>}</td>
                <td data-label="Description">{f.description ?? <span class="muted">—</span>}</td>
                <td data-label="Tests">{f.tests?.length ? f.tests.map((t) => <code class="test" key={t}>{t}</code>) : <span class="muted">—</span>}</td>
              </tr>
            ))}
          </Table>
        </ModelCard>
      ))}
    </>
  );
}

