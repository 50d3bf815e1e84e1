import { useState } from "preact/hooks";
import { ApiError, call, enc, getText, send, type ChangeReport, type DataContract, type NormalizedModel } from "../api.js";
import { contractSummary, isOdcs, schemaList } from "../documents.js";
import { CodeEditor } from "../editor.js";
import { ErrorBox, Field } from "../ui.js";
import type { LineProblem } from "../yaml-text.js";
import { DocumentEditor, type Doc, type FormProps, type Resource } from "../components/document-editor.js";
import { PolicyCheck } from "../components/policy-check.js";
import { ModelTables } from "../components/model-tables.js";
import { OwnerTeamField } from "../components/owner-team.js";
import { SuggestingInput } from "../components/suggesting-input.js";

const CONTRACT: Resource = { plural: "datacontracts", noun: "data contract", listTitle: "Data contracts" };

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

/** The path of the first schema's specification, as the server names it in violations. */
const specPath = (doc: Doc) => (Array.isArray(doc.schema) ? "schema[0].specification" : "schema.specification");
const isSpecField = (field: string) => /^schema(\[0\])?\.specification(\b|\.|\[|$)/.test(field);

/** The Data Contract Specification 0.9 form: the contract's facts and its typed schema, checked by line. */
function ContractForm({ doc, onChange, errors, violations }: FormProps) {
  const info = (doc.info ?? {}) as Record<string, unknown>;
  const schema = schemaList(doc)[0] ?? { type: "dbt", specification: "" };
  const spec = typeof schema.specification === "string" ? schema.specification : JSON.stringify(schema.specification ?? "", null, 2);
  const [preview, setPreview] = useState<NormalizedModel[] | undefined>();
  const [checkError, setCheckError] = useState<ApiError | undefined>();
  const setInfo = (k: string, v: string) => onChange({ ...doc, info: { ...info, [k]: v === "" && !["title", "version", "owner"].includes(k) ? undefined : v } });
  const setSchema = (next: { type: string; specification: string }) => {
    const merged = { ...schema, ...next };
    onChange({ ...doc, schema: Array.isArray(doc.schema) ? [merged, ...doc.schema.slice(1)] : merged });
    setPreview(undefined);
    setCheckError(undefined);
  };
  const prefix = specPath(doc);
  // Problems inside the schema text carry their own line; the check button's come without the prefix.
  const problems: LineProblem[] = [
    ...violations.map((v) => ({ ...v, field: v.field.replace(prefix, "specification"), at: v.line !== undefined ? { line: v.line, column: v.column ?? 1 } : undefined })),
    ...(checkError?.violations ?? []).map((v) => ({ ...v, at: v.line !== undefined ? { line: v.line, column: v.column ?? 1 } : undefined })),
  ];
  const typeError = errors[`${prefix.replace(".specification", "")}.type`];
  return (
    <>
      <div class="row">
        <Field label="Title" id="title" error={errors["info.title"]}>
          <input id="title" required value={String(info.title ?? "")} onInput={(e) => setInfo("title", e.currentTarget.value)} aria-invalid={!!errors["info.title"] || undefined} />
        </Field>
        <Field label="Version" id="version" error={errors["info.version"]}>
          <input id="version" required value={String(info.version ?? "")} onInput={(e) => setInfo("version", e.currentTarget.value)} aria-invalid={!!errors["info.version"] || undefined} />
        </Field>
        <OwnerTeamField id="owner" doc={doc} onChange={onChange} error={errors["info.owner"]} />
        <Field label="Status" id="contract-status">
          <SuggestingInput id="contract-status" list="contract-statuses" value={String(info.status ?? "")} onValue={(v) => setInfo("status", v)} suggestions={["draft", "active", "deprecated"]} />
        </Field>
      </div>
      <Field label="Description" id="description">
        <textarea id="description" rows={2} value={String(info.description ?? "")} onInput={(e) => setInfo("description", e.currentTarget.value)} />
      </Field>
      <Field label="Schema type" id="schema-type" error={typeError}>
        <select id="schema-type" value={schema.type} onChange={(e) => setSchema({ type: e.currentTarget.value, specification: spec })}>
          {TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </Field>
      <CodeEditor
        id="specification"
        label="Schema specification"
        rows={16}
        value={spec}
        onInput={(v) => setSchema({ type: schema.type, specification: v })}
        problems={problems}
        hint={schema.type === "dbt" ? "dbt YAML (version 2, models with columns)." : schema.type === "custom" ? "Any text; not parsed." : "JSON text."}
      />
      <div class="form-actions start">
        <button
          type="button"
          onClick={async () => {
            setCheckError(undefined);
            setPreview(undefined);
            try {
              setPreview((await call<{ models: NormalizedModel[] }>("POST", "/api/schemas/validate", { type: schema.type, specification: spec })).models);
            } catch (err) {
              const e = err instanceof ApiError ? err : new ApiError(0, String(err));
              setCheckError(new ApiError(e.status, e.detail, e.violations.map((v) => ({ ...v, field: v.field.replace(/^specification/, "specification") })), e.title));
            }
          }}
        >
          Check schema
        </button>
      </div>
      {checkError && checkError.violations.length === 0 && <ErrorBox error={checkError} />}
      {checkError && checkError.violations.length > 0 && (
        <p class="alert error" role="status">
          The schema has {checkError.violations.length} problem{checkError.violations.length === 1 ? "" : "s"}: see the list under it.
        </p>
      )}
      {preview && (
        <section aria-labelledby="preview">
          <h2 id="preview">Schema is valid — preview</h2>
          <ModelTables models={preview} />
        </section>
      )}
    </>
  );
}

const odcsTemplate = (owner: string) => `apiVersion: v3.1.0
kind: DataContract
id: ""
name: ""
version: 1.0.0
status: draft
team:
  name: ${owner || "your-team-id"}
schema:
  - name: orders
    logicalType: object
    properties:
      - name: order_id
        logicalType: string
        required: true
        primaryKey: true
      - name: amount
        logicalType: number
`;

/** Proposes the edit to the consumers it would break; the answer's header says how many accesses' consumers were told. */
async function tellConsumers(id: string, doc: Doc): Promise<string> {
  const answer = await send<ChangeReport>("POST", `/api/datacontracts/${enc(id)}/changes?notify=true`, doc);
  const told = Number(answer.headers?.get("steward-notified") ?? "0");
  if (answer.headers?.get("steward-notified-earlier")) return "The consumers were already told of this proposal within the last day.";
  if (told === 0) return "No approved access depends on this contract: nobody needed telling.";
  return `The consumers of ${told} access${told === 1 ? "" : "es"} were told.`;
}

export function ContractEditor({ id }: { id?: string }) {
  return (
    <DocumentEditor
      resource={CONTRACT}
      id={id}
      template={(owner) => ({ dataContractSpecification: "0.9.3", info: { title: "", version: "1.0.0", owner, status: "draft" }, schema: { type: "dbt", specification: SAMPLE } })}
      yamlTemplates={[{ label: "an ODCS document", text: odcsTemplate }]}
      ownerOf={(doc) => contractSummary(doc as unknown as DataContract).owner}
      titleOf={(doc) => contractSummary(doc as unknown as DataContract).title}
      form={(doc) => (isOdcs(doc) || !("schema" in doc) || schemaList(doc).length === 0 ? null : ContractForm)}
      labels={{ "info.title": "The title", "info.version": "The version", "info.owner": "The owner team", "info.status": "The status", "schema.type": "The schema type", "schema[0].type": "The schema type" }}
      claims={isSpecField}
      review={(id, doc) => call<ChangeReport>("POST", `/api/datacontracts/${enc(id)}/changes`, doc)}
      tellConsumers={tellConsumers}
      yamlText={(id) => getText(`/api/datacontracts/${enc(id)}/datacontract.yaml`)}
      check={(draft) => <PolicyCheck gate="contract.publish" draft={draft} />}
      intro="The schema is checked when you save; every problem is listed against the line it is on. Paste or import a document as YAML or JSON for the Open Data Contract Standard (ODCS)."
    />
  );
}
