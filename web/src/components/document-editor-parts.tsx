import type { ComponentChildren } from "preact";
import { enc, type ChangeReport, type Violation } from "../api.js";
import { CodeEditor, ImportFile, TextDiff } from "../editor.js";
import { Field, PageHeader } from "../ui.js";
import { ID_RULE } from "../words.js";
import { toYaml, type LineProblem } from "../yaml-text.js";

/** The types and the parts of the document editor (components/document-editor.tsx). */

export type Doc = Record<string, unknown>;

export interface Resource {
  /** Path segment under /api and in the app: teams, dataproducts, datacontracts. */
  plural: string;
  /** "team", "data product", "data contract". */
  noun: string;
  /** Heading of the list page, for the breadcrumb. */
  listTitle: string;
}

export interface FormProps {
  doc: Doc;
  onChange: (doc: Doc) => void;
  /** Errors of the last save, in words, keyed by the server's field path. */
  errors: Record<string, string>;
  /** The violations the form shows itself (see `claims`), e.g. those inside a schema text, by line. */
  violations: Violation[];
  isNew: boolean;
}

export interface DocumentEditorProps {
  resource: Resource;
  /** Absent: a new document. */
  id?: string;
  /** The starting document of "New", for the person's first team. */
  template: (ownerTeam: string) => Doc;
  /** Starting points offered in the YAML view of "New", e.g. a document of an open standard. */
  yamlTemplates?: Array<{ label: string; text: (ownerTeam: string) => string }>;
  ownerOf: (doc: Doc) => string | undefined;
  titleOf: (doc: Doc) => string;
  /** The form for documents this format has a form for; null: YAML only. */
  form?: (doc: Doc) => ((props: FormProps) => ComponentChildren) | null;
  /** Labels of the form's fields by the server's field path, so violations read "Title cannot be empty." */
  labels?: Record<string, string>;
  /** Violations the form shows in place (not repeated in the message above it). */
  claims?: (field: string) => boolean;
  intro?: ComponentChildren;
  /** Before an edit is saved: the changes it would make, so a breaking one is confirmed first. */
  review?: (id: string, doc: Doc) => Promise<ChangeReport>;
  /** Beside the warning of a breaking edit: tells the consumers of the accesses it would break, and says how it went. */
  tellConsumers?: (id: string, doc: Doc) => Promise<string>;
  /**
   * The stored document's YAML as written, for a resource that keeps it (data contracts): the YAML
   * view starts from that text, and the text is saved as YAML, comments and all.
   */
  yamlText?: (id: string) => Promise<string>;
  /** Shown above the buttons: a check of the draft as it stands (the document, or undefined when its text cannot be read, and its id). */
  check?: (draft: () => { doc?: Doc; id: string }) => ComponentChildren;
}

export type Mode = "form" | "yaml";

/** Instead of the editor: the person does not act for the document's owner team. */
export function NotYours({ resource, id, title, owner }: { resource: Resource; id: string; title: string; owner: string | undefined }) {
  return (
    <>
      <PageHeader title={`Edit ${title}`} kicker={<a href={`/${resource.plural}`}>{resource.listTitle}</a>} />
      <div class="alert warn" role="status">
        <strong>You cannot change this {resource.noun}</strong>
        <p>
          It belongs to the team <code>{owner ?? "—"}</code>, and you do not act for that team. Ask one of its members or an organization owner.
        </p>
      </div>
      <a href={`/${resource.plural}/${enc(id)}`}>Back to {title}</a>
    </>
  );
}

/** Someone else saved first: both versions side by side, and the choice of keeping theirs or overwriting it. */
export function ConflictNotice(props: { noun: string; theirs: Doc; mine: Doc; onReload: () => void; onOverwrite: (e: Event) => void }) {
  return (
    <section class="alert warn conflict" role="alert" aria-labelledby="conflict-title">
      <strong id="conflict-title">Someone else saved this {props.noun} after you opened it</strong>
      <p>Your changes are not saved. Compare the two versions, then keep theirs (your edits are dropped) or save yours over theirs.</p>
      <TextDiff before={toYaml(props.theirs)} after={toYaml(props.mine)} beforeLabel="saved by someone else" afterLabel="your version" />
      <div class="form-actions">
        <button type="button" onClick={props.onReload}>
          Reload their version
        </button>
        <button type="button" class="danger" onClick={props.onOverwrite}>
          Save mine over theirs
        </button>
      </div>
    </section>
  );
}

/** The id of a new document; `exists` names an id already taken. */
export function NewIdField(props: { resource: Resource; yaml: boolean; value: string; onInput: (id: string) => void; exists?: string; error?: string }) {
  const { resource, exists } = props;
  return (
    <Field
      label="Id"
      id="doc-id"
      hint={`${ID_RULE} ${props.yaml ? "Empty: the document's own id." : ""}`}
      error={
        exists ? (
          <>
            A {resource.noun} with the id “{exists}” already exists — <a href={`/${resource.plural}/${enc(exists)}`}>open it?</a> Nothing was overwritten.
          </>
        ) : (
          props.error
        )
      }
    >
      <input id="doc-id" value={props.value} onInput={(e) => props.onInput(e.currentTarget.value)} aria-invalid={!!exists || !!props.error || undefined} aria-describedby="doc-id-hint doc-id-error" />
    </Field>
  );
}

/** Form or YAML/JSON; a format without a form is edited as text only. */
export function ModeTabs({ mode, formless, onSwitch }: { mode: Mode; formless: boolean; onSwitch: (mode: Mode) => void }) {
  return (
    <div class="tabs" role="group" aria-label="Edit as">
      <button type="button" aria-pressed={mode === "form"} disabled={formless && mode === "yaml"} onClick={() => onSwitch("form")}>
        Form
      </button>
      <button type="button" aria-pressed={mode === "yaml"} onClick={() => onSwitch("yaml")}>
        YAML / JSON
      </button>
    </div>
  );
}

/** The document as text, with its problems by line, a file import and, for a new document, the starting points. */
export function YamlPane(props: {
  text: string;
  problems: LineProblem[];
  onText: (text: string) => void;
  onImport: (text: string) => void;
  templates?: Array<{ label: string; text: () => string }>;
}) {
  return (
    <>
      <div class="editor-tools">
        <ImportFile onText={props.onImport} />
        {props.templates?.map((t) => (
          <button type="button" key={t.label} onClick={() => props.onText(t.text())}>
            Start from {t.label}
          </button>
        ))}
        <span class="hint">YAML or JSON.</span>
      </div>
      <CodeEditor id="document" label="Document" value={props.text} onInput={props.onText} problems={props.problems} />
    </>
  );
}
