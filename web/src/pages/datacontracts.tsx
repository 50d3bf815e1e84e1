import { useEffect, useState } from "preact/hooks";
import { ApiError, call, enc, get, withQuery, type DataContract, type NormalizedField, type NormalizedModel, type SchemaObject, type Team, type Violation } from "../api.js";
import { navigate } from "../router.js";
import { canActFor, useSession } from "../session.js";
import { Badge, CatalogFilters, Empty, ErrorBox, Field, Loading, PageHeader, TeamOptions, useDebounced, useLoad, Violations, Table } from "../ui.js";
import { TeamLink } from "./dataproducts.js";

export function DataContractList() {
  const { session } = useSession();
  const [q, setQ] = useState("");
  const [teamId, setTeamId] = useState("");
  const query = useDebounced(q);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const contracts = useLoad(() => get<DataContract[]>(withQuery("/api/datacontracts", { q: query.trim(), teamId })), [query, teamId]);
  return (
    <>
      <PageHeader
        title="Data contracts"
        actions={
          (session.scope === "organization" || session.teamIds.length > 0) && (
            <a class="button primary" href="/datacontracts/new">
              New data contract
            </a>
          )
        }
      >
        <p class="lead">Agreements on the data behind output ports: schemas, terms and quality.</p>
      </PageHeader>
      <CatalogFilters q={q} onQ={setQ} teamId={teamId} onTeamId={setTeamId} teams={teams.data}>
      </CatalogFilters>
      <ErrorBox error={contracts.error} />
      {contracts.loading && !contracts.data ? (
        <Loading />
      ) : contracts.data?.length === 0 ? (
        <Empty>No data contracts found.</Empty>
      ) : (
        <Table columns={["Title", "Version", "Owner", "Schema", "Status"]}>
          {contracts.data?.map((c) => (
            <tr key={c.id}>
              <td>
                <a class="strong" href={`/datacontracts/${enc(c.id)}`}>
                  {c.info.title}
                </a>
                <div class="sub">
                  <code>{c.id}</code>
                </div>
              </td>
              <td>{c.info.version}</td>
              <td>
                <TeamLink teams={teams.data} id={c.info.owner} />
              </td>
              <td>{schemaList(c).map((s, i) => <Badge key={i} tone="info">{s.type}</Badge>)}</td>
              <td>{c.info.status ? <Badge>{c.info.status}</Badge> : <span class="muted">—</span>}</td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

const schemaList = (c: DataContract): SchemaObject[] => (Array.isArray(c.schema) ? c.schema : c.schema ? [c.schema] : []);

export function DataContractPage({ id }: { id: string }) {
  const { session } = useSession();
  const contract = useLoad(() => get<DataContract>(`/api/datacontracts/${enc(id)}`), [id]);
  const models = useLoad(() => get<{ models: NormalizedModel[]; schemas: Array<{ type: string; detectedType: string; models: NormalizedModel[] }> }>(`/api/datacontracts/${enc(id)}/models`), [id]);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  if (contract.loading) return <Loading />;
  if (!contract.data) return <ErrorBox error={contract.error} />;
  const c = contract.data;
  return (
    <>
      <PageHeader
        title={c.info.title}
        kicker={<a href="/datacontracts">Data contracts</a>}
        actions={
          canActFor(session, c.info.owner) && (
            <a class="button" href={`/datacontracts/${enc(c.id)}/edit`}>
              Edit
            </a>
          )
        }
      >
        {c.info.description && <p class="lead">{c.info.description}</p>}
      </PageHeader>
      <dl class="facts">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{c.id}</code>
          </dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{c.info.version}</dd>
        </div>
        <div>
          <dt>Owner</dt>
          <dd>
            <TeamLink teams={teams.data} id={c.info.owner} />
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{c.info.status ? <Badge>{c.info.status}</Badge> : "—"}</dd>
        </div>
        {c.provider?.dataProductId && (
          <div>
            <dt>Provided by</dt>
            <dd>
              <a href={`/dataproducts/${enc(c.provider.dataProductId)}`}>{c.provider.dataProductId}</a>
              {c.provider.outputPortId && <span class="muted"> · {c.provider.outputPortId}</span>}
            </dd>
          </div>
        )}
      </dl>
      {c.terms && Object.values(c.terms).some(Boolean) && (
        <section aria-labelledby="terms">
          <h2 id="terms">Terms</h2>
          <dl class="terms">
            {(["usage", "limitations", "billing", "noticePeriod"] as const).map(
              (k) =>
                c.terms?.[k] && (
                  <div key={k}>
                    <dt>{k === "noticePeriod" ? "Notice period" : k[0].toUpperCase() + k.slice(1)}</dt>
                    <dd>{c.terms[k]}</dd>
                  </div>
                ),
            )}
          </dl>
        </section>
      )}
      <section aria-labelledby="models">
        <h2 id="models">Models</h2>
        <p class="muted">
          {schemaList(c)
            .map((s, i) => `${s.type}${models.data?.schemas[i] && models.data.schemas[i].detectedType !== s.type ? ` (read as ${models.data.schemas[i].detectedType})` : ""}`)
            .join(", ")}{" "}
          schema, normalized.
        </p>
        <ErrorBox error={models.error} />
        {models.loading ? <Loading /> : models.data && <ModelTables models={models.data.models} />}
      </section>
    </>
  );
}

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

export function ModelTables({ models }: { models: NormalizedModel[] }) {
  if (models.length === 0) return <Empty>This schema defines no models (custom schemas are not parsed).</Empty>;
  return (
    <>
      {models.map((m) => (
        <article class="model" key={m.name} aria-labelledby={`model-${m.name}`}>
          <header class="card-header">
            <h3 id={`model-${m.name}`}>{m.name}</h3>
            <Badge tone="info">{m.kind}</Badge>
          </header>
          {m.description && <p>{m.description}</p>}
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
                </td>
                <td data-label="Required">{f.required ? <Badge tone="ok">required</Badge> : <span class="muted">optional</span>}</td>
                <td data-label="Description">{f.description ?? <span class="muted">—</span>}</td>
                <td data-label="Tests">{f.tests?.length ? f.tests.map((t) => <code class="test" key={t}>{t}</code>) : <span class="muted">—</span>}</td>
              </tr>
            ))}
          </Table>
        </article>
      ))}
    </>
  );
}

const TYPES = ["dbt", "bigquery", "jsonschema", "avro", "custom"];

const SAMPLE = `version: 2
models:
  - name: orders
    description: One row per order.
    columns:
      - name: order_id
        data_type: string
        tests: [not_null, unique]
      - name: amount
        data_type: numeric
`;

/** The violations that point into the specification text, by line. */
function byLine(violations: Violation[]): Map<number, Violation[]> {
  const lines = new Map<number, Violation[]>();
  for (const v of violations) {
    if (v.line === undefined) continue;
    lines.set(v.line, [...(lines.get(v.line) ?? []), v]);
  }
  return lines;
}

/** The specification with each violation shown under the line it is about. */
export function AnnotatedSource({ text, violations }: { text: string; violations: Violation[] }) {
  const lines = byLine(violations);
  if (lines.size === 0) return null;
  return (
    <figure class="annotated">
      <figcaption>Problems in the specification, by line</figcaption>
      <ol class="source">
        {text.split("\n").map((line, i) => {
          const here = lines.get(i + 1);
          return (
            <li key={i} class={here ? "has-error" : undefined}>
              <code>{line || " "}</code>
              {here?.map((v, j) => (
                <p class="line-error" key={j}>
                  {v.column !== undefined && <span class="col">col {v.column}: </span>}
                  {v.message}
                </p>
              ))}
            </li>
          );
        })}
      </ol>
    </figure>
  );
}

export function ContractEditor({ id }: { id?: string }) {
  const { session } = useSession();
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const existing = useLoad(() => (id ? get<DataContract>(`/api/datacontracts/${enc(id)}`) : Promise.resolve(undefined)), [id]);
  const [form, setForm] = useState({ id: "", title: "", version: "1.0.0", owner: "", status: "draft", description: "", type: "dbt", specification: SAMPLE });
  const [error, setError] = useState<ApiError | undefined>();
  const [preview, setPreview] = useState<NormalizedModel[] | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const c = existing.data;
    if (!c) return;
    const schema = schemaList(c)[0];
    setForm({
      id: c.id,
      title: c.info.title,
      version: c.info.version,
      owner: c.info.owner,
      status: c.info.status ?? "",
      description: c.info.description ?? "",
      type: schema?.type ?? "dbt",
      specification: typeof schema?.specification === "string" ? schema.specification : JSON.stringify(schema?.specification ?? "", null, 2),
    });
  }, [existing.data]);

  if (existing.loading) return <Loading />;
  if (id && !existing.data) return <ErrorBox error={existing.error} />;
  const myTeams = (teams.data ?? []).filter((t) => canActFor(session, t.id));
  const owner = form.owner || myTeams[0]?.id || "";
  const set = (k: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [k]: e.currentTarget.value });
  const violations = error?.violations ?? [];
  const schemaPath = existing.data && Array.isArray(existing.data.schema) ? "schema[0]" : "schema";
  const specViolations = violations.filter((v) => v.field === `${schemaPath}.specification` || v.field.startsWith(`${schemaPath}.specification`) || v.field.startsWith("specification"));
  const fieldError = (name: string) => violations.find((v) => v.field === name)?.message;

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setPreview(undefined);
    const contractId = id ?? form.id.trim();
    const schema = { ...(existing.data ? schemaList(existing.data)[0] : {}), type: form.type, specification: form.specification };
    const before = existing.data;
    const doc = {
      ...before,
      id: contractId,
      dataContractSpecification: before?.dataContractSpecification ?? "0.9.3",
      info: { ...before?.info, title: form.title, version: form.version, owner, ...(form.status ? { status: form.status } : {}), ...(form.description ? { description: form.description } : {}) },
      schema: before && Array.isArray(before.schema) ? [schema, ...before.schema.slice(1)] : schema,
    };
    try {
      if (!contractId) throw new ApiError(422, "Choose an id for the contract.", [{ field: "id", message: "is required" }]);
      await call("PUT", `/api/datacontracts/${enc(contractId)}`, doc);
      navigate(`/datacontracts/${enc(contractId)}`);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
    } finally {
      setBusy(false);
    }
  };

  const check = async () => {
    setError(undefined);
    setPreview(undefined);
    try {
      const parsed = await call<{ models: NormalizedModel[] }>("POST", "/api/schemas/validate", { type: form.type, specification: form.specification });
      setPreview(parsed.models);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
    }
  };

  return (
    <>
      <PageHeader title={id ? `Edit ${existing.data?.info.title ?? id}` : "New data contract"} kicker={<a href="/datacontracts">Data contracts</a>}>
        <p class="lead">The schema is checked when you save; every problem is listed against the line it is on.</p>
      </PageHeader>
      <form class="editor" onSubmit={save} noValidate>
        <div class="row">
          {!id && (
            <Field label="Id" id="contract-id" hint="Letters, digits, dashes; cannot change later." error={fieldError("id")}>
              <input id="contract-id" required value={form.id} onInput={set("id")} />
            </Field>
          )}
          <Field label="Title" id="title" error={fieldError("info.title")}>
            <input id="title" required value={form.title} onInput={set("title")} />
          </Field>
          <Field label="Version" id="version" error={fieldError("info.version")}>
            <input id="version" required value={form.version} onInput={set("version")} />
          </Field>
        </div>
        <div class="row">
          <Field label="Owner team" id="owner" error={fieldError("info.owner")}>
            <select id="owner" value={owner} onChange={set("owner")}>
              <TeamOptions teams={myTeams} />
            </select>
          </Field>
          <Field label="Status" id="contract-status">
            <input id="contract-status" value={form.status} onInput={set("status")} list="contract-statuses" />
            <datalist id="contract-statuses">
              <option value="draft" />
              <option value="active" />
              <option value="deprecated" />
            </datalist>
          </Field>
          <Field label="Schema type" id="schema-type">
            <select id="schema-type" value={form.type} onChange={set("type")}>
              {TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </Field>
        </div>
        <Field label="Description" id="description">
          <input id="description" value={form.description} onInput={set("description")} />
        </Field>
        <Field label="Schema specification" id="specification" hint={form.type === "dbt" ? "dbt YAML (version 2, models with columns)." : form.type === "custom" ? "Any text; not parsed." : "JSON text."}>
          <textarea id="specification" class="code" rows={16} spellcheck={false} value={form.specification} onInput={set("specification")} aria-describedby={specViolations.length ? "spec-problems" : undefined} />
        </Field>
        {error && (
          <div class="alert error" role="alert" id="spec-problems">
            <strong>{error.status === 422 ? `The contract is not valid: ${violations.length} problem${violations.length === 1 ? "" : "s"}` : "Not saved"}</strong>
            <p>{error.detail}</p>
            {violations.length > 0 && <Violations violations={violations} />}
          </div>
        )}
        {error && <AnnotatedSource text={form.specification} violations={specViolations} />}
        <div class="form-actions">
          <button type="button" onClick={check}>
            Check schema
          </button>
          <button type="submit" class="primary" disabled={busy}>
            {id ? "Save changes" : "Create contract"}
          </button>
        </div>
      </form>
      {preview && (
        <section aria-labelledby="preview">
          <h2 id="preview">Schema is valid — preview</h2>
          <ModelTables models={preview} />
        </section>
      )}
    </>
  );
}
