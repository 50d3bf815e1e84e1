import { get, type DataContract, type DataProduct } from "../api.js";
import { contractSummary, isOdps, productSummary } from "../documents.js";
import { Field, useLoad } from "../ui.js";
import { ID_RULE } from "../words.js";
import { DocumentEditor, type Doc, type FormProps, type Resource } from "../components/document-editor.js";
import { OwnerTeamField } from "../components/owner-team.js";

const PRODUCT: Resource = { plural: "dataproducts", noun: "data product", listTitle: "Data products" };

type Port = Record<string, unknown> & { id?: string; server?: Record<string, unknown> };

const STATUSES = ["proposed", "in development", "active", "deprecated", "retired"];

/** A contract in a picker: its title (docs/formats.md), with its version, or its id where two share a title. */
function contractLabel(c: DataContract, all: DataContract[]): string {
  const { title, version } = contractSummary(c);
  const shared = all.some((o) => o.id !== c.id && contractSummary(o).title === title);
  return `${title}${version ? ` ${version}` : ""}${shared ? ` — ${c.id}` : ""}`;
}

/** The Data Product Specification form: the product's facts and its output ports. ODPS documents are edited as YAML. */
function ProductForm({ doc, onChange, errors }: FormProps) {
  const contracts = useLoad(() => get<DataContract[]>("/api/datacontracts"), []);
  const info = (doc.info ?? {}) as Record<string, unknown>;
  const ports = (Array.isArray(doc.outputPorts) ? doc.outputPorts : []) as Port[];
  const setInfo = (k: string, v: string) => onChange({ ...doc, info: { ...info, [k]: v === "" && k !== "title" && k !== "owner" ? undefined : v } });
  const setPort = (i: number, next: Port) => onChange({ ...doc, outputPorts: ports.map((p, j) => (j === i ? next : p)) });
  const tags = Array.isArray(doc.tags) ? (doc.tags as string[]).join(", ") : "";
  return (
    <>
      <div class="row">
        <Field label="Title" id="product-title" error={errors["info.title"]}>
          <input id="product-title" required value={String(info.title ?? "")} onInput={(e) => setInfo("title", e.currentTarget.value)} aria-invalid={!!errors["info.title"] || undefined} />
        </Field>
        <OwnerTeamField id="product-owner" doc={doc} onChange={onChange} error={errors["info.owner"]} />
        <Field label="Status" id="product-status" error={errors["info.status"]}>
          <select id="product-status" value={String(info.status ?? "")} onChange={(e) => setInfo("status", e.currentTarget.value)}>
            <option value="">No status</option>
            {info.status && !STATUSES.includes(String(info.status)) ? <option value={String(info.status)}>{String(info.status)}</option> : null}
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="Description" id="product-description" error={errors["info.description"]}>
        <textarea id="product-description" rows={2} value={String(info.description ?? "")} onInput={(e) => setInfo("description", e.currentTarget.value)} />
      </Field>
      <div class="row">
        <Field label="Archetype" id="product-archetype" hint="For example source-aligned, aggregate, consumer-aligned.">
          <input id="product-archetype" value={String(info.archetype ?? "")} onInput={(e) => setInfo("archetype", e.currentTarget.value)} />
        </Field>
        <Field label="Maturity" id="product-maturity" hint="For example raw, defined, managed.">
          <input id="product-maturity" value={String(info.maturity ?? "")} onInput={(e) => setInfo("maturity", e.currentTarget.value)} />
        </Field>
        <Field label="Tags" id="product-tags" hint="Separated by commas.">
          <input
            id="product-tags"
            value={tags}
            onInput={(e) => {
              const list = e.currentTarget.value.split(",").map((t) => t.trim()).filter(Boolean);
              onChange({ ...doc, tags: list.length ? list : undefined });
            }}
          />
        </Field>
      </div>
      <fieldset class="ports">
        <legend>Output ports</legend>
        {ports.length === 0 && <p class="hint">No output ports yet. A port is how consumers get the data; access is requested per port.</p>}
        {ports.map((port, i) => {
          const err = (k: string) => errors[`outputPorts[${i}].${k}`];
          const set = (k: string, v: unknown) => setPort(i, { ...port, [k]: v === "" ? undefined : v });
          const server = (port.server ?? {}) as Record<string, unknown>;
          const setServer = (k: string, v: string) => {
            const next = { ...server, [k]: v === "" ? undefined : v };
            setPort(i, { ...port, server: Object.values(next).some((x) => x !== undefined) ? next : undefined });
          };
          const name = port.name || port.id || `Port ${i + 1}`;
          return (
            <section class="port-editor" key={i} aria-label={`Output port ${name}`}>
              <div class="row">
                <Field label="Port id" id={`port-${i}-id`} hint={ID_RULE} error={err("id")}>
                  <input id={`port-${i}-id`} required value={String(port.id ?? "")} onInput={(e) => set("id", e.currentTarget.value)} aria-invalid={!!err("id") || undefined} />
                </Field>
                <Field label="Port name" id={`port-${i}-name`} error={err("name")}>
                  <input id={`port-${i}-name`} value={String(port.name ?? "")} onInput={(e) => set("name", e.currentTarget.value)} />
                </Field>
                <Field label="Type" id={`port-${i}-type`} hint="postgres, bigquery, snowflake, kafka, …" error={err("type")}>
                  <input id={`port-${i}-type`} value={String(port.type ?? "")} onInput={(e) => set("type", e.currentTarget.value)} />
                </Field>
              </div>
              <div class="row">
                <Field label="Data contract" id={`port-${i}-contract`} error={err("dataContractId")}>
                  <select id={`port-${i}-contract`} value={String(port.dataContractId ?? "")} onChange={(e) => set("dataContractId", e.currentTarget.value)}>
                    <option value="">None</option>
                    {contracts.data?.map((c) => (
                      <option key={c.id} value={c.id}>
                        {contractLabel(c, contracts.data!)}
                      </option>
                    ))}
                  </select>
                </Field>
                <Field label="Server host" id={`port-${i}-host`}>
                  <input id={`port-${i}-host`} value={String(server.host ?? "")} onInput={(e) => setServer("host", e.currentTarget.value)} />
                </Field>
                <Field label="Database" id={`port-${i}-database`}>
                  <input id={`port-${i}-database`} value={String(server.database ?? "")} onInput={(e) => setServer("database", e.currentTarget.value)} />
                </Field>
                <Field label="Schema" id={`port-${i}-schema`}>
                  <input id={`port-${i}-schema`} value={String(server.schema ?? "")} onInput={(e) => setServer("schema", e.currentTarget.value)} />
                </Field>
                <Field label="Table" id={`port-${i}-table`} hint="For grants on one table rather than the whole schema.">
                  <input id={`port-${i}-table`} value={String(server.table ?? "")} onInput={(e) => setServer("table", e.currentTarget.value)} />
                </Field>
              </div>
              <div class="row checks">
                <label>
                  <input type="checkbox" checked={port.autoApprove === true} onChange={(e) => set("autoApprove", e.currentTarget.checked || undefined)} /> Approve access requests automatically
                </label>
                <label>
                  <input type="checkbox" checked={port.containsPii === true} onChange={(e) => set("containsPii", e.currentTarget.checked || undefined)} /> Contains personal data
                </label>
                <button type="button" class="danger-link" onClick={() => onChange({ ...doc, outputPorts: ports.filter((_, j) => j !== i) })}>
                  Remove port<span class="visually-hidden"> {name}</span>
                </button>
              </div>
            </section>
          );
        })}
        <button type="button" onClick={() => onChange({ ...doc, outputPorts: [...ports, { id: "", name: "" }] })}>
          Add output port
        </button>
      </fieldset>
    </>
  );
}

const odpsTemplate = (owner: string) => `apiVersion: v1.0.0
kind: DataProduct
id: ""
name: ""
status: proposed
team:
  name: ${owner || "your-team-id"}
outputPorts:
  - name: warehouse
    version: "1.0.0"
    contractId: ""
`;

export function DataProductEditor({ id }: { id?: string }) {
  return (
    <DocumentEditor
      resource={PRODUCT}
      id={id}
      template={(owner) => ({ dataProductSpecification: "0.0.1", info: { title: "", owner, status: "proposed" }, outputPorts: [] })}
      yamlTemplates={[{ label: "an ODPS document", text: odpsTemplate }]}
      ownerOf={(doc: Doc) => productSummary(doc as unknown as DataProduct).owner}
      titleOf={(doc: Doc) => productSummary(doc as unknown as DataProduct).title}
      form={(doc) => (isOdps(doc) ? null : ProductForm)}
      labels={{
        "info.title": "The title",
        "info.owner": "The owner team",
        "info.status": "The status",
        "outputPorts[].id": "The port id",
        "outputPorts[].name": "The port name",
        "outputPorts[].dataContractId": "The data contract",
        "outputPorts[].type": "The type",
      }}
      intro="Fill in the form (Data Product Specification), or paste or import a document as YAML or JSON — the Open Data Product Standard (ODPS) too."
    />
  );
}
