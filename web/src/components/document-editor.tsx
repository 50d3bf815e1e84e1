import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, enc, send, type AffectedAccess, type ChangeReport, type ContractChange, type Violation } from "../api.js";
import { CodeEditor, ImportFile, TextDiff, useUnsavedGuard } from "../editor.js";
import { navigate } from "../router.js";
import { canActFor, useSession } from "../session.js";
import { ErrorBox, Field, Loading, PageHeader } from "../ui.js";
import { atFields, ID_RULE, idProblem } from "../words.js";
import { parseText, toYaml, type LineProblem } from "../yaml-text.js";
import { BreakingWarning } from "./contract-changes.js";

/**
 * Creating and editing a catalog document (team, data product, data contract): a form where the
 * format has one, or the document as YAML/JSON with line numbers and its problems by line.
 * Writes are safe: a new document is sent with `If-None-Match: *` (never overwriting one with the
 * same id), an edit with `If-Match` (never overwriting someone else's newer save).
 */

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
  /**
   * The stored document's YAML as written, for a resource that keeps it (data contracts): the YAML
   * view starts from that text, and the text is saved as YAML, comments and all.
   */
  yamlText?: (id: string) => Promise<string>;
  /** Shown above the buttons: a check of the draft as it stands (the document, or undefined when its text cannot be read, and its id). */
  check?: (draft: () => { doc?: Doc; id: string }) => ComponentChildren;
}

type Mode = "form" | "yaml";

export function DocumentEditor(props: DocumentEditorProps) {
  const { session } = useSession();
  const { resource, id } = props;
  const myTeams = session.teamIds;
  const firstTeam = myTeams[0] ?? "";
  const [loaded, setLoaded] = useState<{ doc?: Doc; etag?: string; error?: unknown; loading: boolean }>({ loading: !!id });
  const [doc, setDoc] = useState<Doc>(() => (id ? {} : props.template(firstTeam)));
  const [text, setText] = useState(() => (id ? "" : toYaml(props.template(firstTeam))));
  const [mode, setMode] = useState<Mode>(() => (props.form?.(doc) ? "form" : "yaml"));
  const [newId, setNewId] = useState("");
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [problems, setProblems] = useState<LineProblem[]>([]);
  const [exists, setExists] = useState<string | undefined>();
  const [conflict, setConflict] = useState<{ theirs: Doc; etag?: string; mine: Doc } | undefined>();
  const [breaking, setBreaking] = useState<{ changes: ContractChange[]; accesses: AffectedAccess[]; refused?: string } | undefined>();
  useUnsavedGuard(dirty);

  const load = async () => {
    if (!id) return;
    try {
      const { data, etag } = await send<Doc>("GET", `/api/${resource.plural}/${enc(id)}`);
      const written = props.yamlText ? await props.yamlText(id) : undefined;
      setLoaded({ doc: data, etag, loading: false });
      setDoc(data);
      setText(written ?? toYaml(data));
      setMode((m) => (props.form?.(data) ? m : "yaml"));
      setDirty(false);
      setConflict(undefined);
      setError(undefined);
      setProblems([]);
    } catch (err) {
      setLoaded({ error: err, loading: false });
    }
  };
  useEffect(() => {
    load();
  }, [id]);

  if (loaded.loading) return <Loading />;
  if (id && !loaded.doc) return <ErrorBox error={loaded.error} />;

  const owner = id ? props.ownerOf(loaded.doc!) : undefined;
  if (id && !canActFor(session, owner)) {
    return (
      <>
        <PageHeader title={`Edit ${props.titleOf(loaded.doc!)}`} kicker={<a href={`/${resource.plural}`}>{resource.listTitle}</a>} />
        <div class="alert warn" role="status">
          <strong>You cannot change this {resource.noun}</strong>
          <p>
            It belongs to the team <code>{owner ?? "—"}</code>, and you do not act for that team. Ask one of its members or an organization owner.
          </p>
        </div>
        <a href={`/${resource.plural}/${enc(id)}`}>Back to {props.titleOf(loaded.doc!)}</a>
      </>
    );
  }

  const FormView = props.form?.(doc) ?? null;
  const edit = (next: Doc) => {
    setDoc(next);
    setDirty(true);
  };
  const editText = (next: string) => {
    setText(next);
    setDirty(true);
  };

  const switchTo = (next: Mode) => {
    if (next === mode) return;
    if (next === "yaml") {
      setText(toYaml(doc));
      setProblems([]);
      setMode("yaml");
      return;
    }
    const parsed = parseText(text);
    if (parsed.problems.length || !isObject(parsed.value)) {
      setProblems(parsed.problems.length ? parsed.problems : [{ field: "", message: "The document must be a mapping of names to values.", at: { line: 1, column: 1 } }]);
      return;
    }
    if (!props.form?.(parsed.value)) {
      setError(new ApiError(0, "This document's format is edited as YAML or JSON only.", [], "No form for this format"));
      return;
    }
    setDoc(parsed.value);
    setMode("form");
  };

  const targetId = () => {
    if (id) return id;
    if (newId.trim() !== "") return newId.trim();
    if (mode === "yaml") {
      const parsed = parseText(text);
      if (isObject(parsed.value) && typeof parsed.value.id === "string") return parsed.value.id;
    }
    return "";
  };

  const save = async (e: Event, overwrite?: string, confirmed = false) => {
    e.preventDefault();
    setError(undefined);
    setBreaking(undefined);
    setExists(undefined);
    setProblems([]);
    let body: Doc = doc;
    let parsed: ReturnType<typeof parseText> | undefined;
    if (mode === "yaml") {
      parsed = parseText(text);
      if (parsed.problems.length) {
        setProblems(parsed.problems);
        setError(new ApiError(0, "The text is not valid YAML or JSON. Nothing was saved.", [], "The document cannot be read"));
        return;
      }
      if (!isObject(parsed.value)) {
        setError(new ApiError(0, "A document is a mapping of names to values (for example `name: Sales`). Nothing was saved.", [], "The document cannot be read"));
        return;
      }
      body = parsed.value;
    }
    const docId = targetId();
    const idError = idProblem(docId);
    if (!id && idError) {
      setError(new ApiError(0, idError, [{ field: "id", message: idError }], "Choose an id"));
      return;
    }
    setBusy(true);
    try {
      if (id && props.review && !confirmed) {
        // A document the comparison cannot read is left to the PUT, which names its problems.
        const report = await props.review(id, body).catch(() => undefined);
        if (report?.breaking) {
          setBreaking({ changes: report.changes, accesses: report.affectedAccesses });
          return;
        }
      }
      // Only an organization owner may store a breaking change over approved accesses; others get the 409 shown below.
      const path = `/api/${resource.plural}/${enc(docId)}${confirmed && session.role === "owner" ? "?allowBreaking=true" : ""}`;
      // Text kept as written goes as YAML, so its comments and order are kept too.
      const asWritten = mode === "yaml" && props.yamlText ? { yaml: text } : {};
      await send("PUT", path, body, { ...(id ? { ifMatch: overwrite ?? loaded.etag } : { ifNoneMatch: "*" }), ...asWritten });
      setDirty(false);
      navigate(`/${resource.plural}/${enc(docId)}`, { force: true });
    } catch (err) {
      const problem = err instanceof ApiError ? err : new ApiError(0, String(err));
      if (problem.status === 412 && !id) {
        setExists(docId);
      } else if (problem.status === 412 && id) {
        try {
          const latest = await send<Doc>("GET", `/api/${resource.plural}/${enc(id)}`);
          setConflict({ theirs: latest.data, etag: latest.etag, mine: body });
        } catch (reloadError) {
          setError(reloadError instanceof ApiError ? reloadError : problem);
        }
      } else if (problem.status === 409 && Array.isArray(problem.extras.breakingChanges)) {
        setBreaking({
          changes: problem.extras.breakingChanges as ContractChange[],
          accesses: (problem.extras.affectedAccesses ?? []) as AffectedAccess[],
          refused: `${problem.detail} Nothing was saved: raise the major version to announce the change, or ask an organization owner.`,
        });
      } else {
        setError(problem);
        if (parsed) setProblems(parsed.locate(problem.violations));
      }
    } finally {
      setBusy(false);
    }
  };

  const labels = { id: "The id", ...props.labels };
  const claimed = mode === "form" && error && props.claims ? error.violations.filter((v) => props.claims!(v.field)) : [];
  const unclaimed = (error?.violations ?? []).filter((v) => !claimed.includes(v));
  const { byField, rest } = mode === "form" && error ? atFields(unclaimed, labels) : { byField: {} as Record<string, string>, rest: unclaimed };
  const shownError = error && (mode === "yaml" && error.violations.length ? new ApiError(error.status, error.detail, [], error.title) : new ApiError(error.status, error.detail, rest, error.title));
  const title = id ? `Edit ${props.titleOf(loaded.doc!)}` : `New ${resource.noun}`;

  return (
    <>
      <PageHeader title={title} kicker={<a href={`/${resource.plural}`}>{resource.listTitle}</a>}>
        {props.intro && <p class="lead">{props.intro}</p>}
      </PageHeader>
      {conflict && (
        <section class="alert warn conflict" role="alert" aria-labelledby="conflict-title">
          <strong id="conflict-title">Someone else saved this {resource.noun} after you opened it</strong>
          <p>Your changes are not saved. Compare the two versions, then keep theirs (your edits are dropped) or save yours over theirs.</p>
          <TextDiff before={toYaml(conflict.theirs)} after={toYaml(conflict.mine)} beforeLabel="saved by someone else" afterLabel="your version" />
          <div class="form-actions">
            <button type="button" onClick={() => load()}>
              Reload their version
            </button>
            <button type="button" class="danger" onClick={(e) => save(e, conflict.etag)}>
              Save mine over theirs
            </button>
          </div>
        </section>
      )}
      {breaking && (
        <BreakingWarning changes={breaking.changes} accesses={breaking.accesses} refused={breaking.refused}>
          <button type="button" onClick={() => setBreaking(undefined)}>
            Cancel
          </button>
          {!breaking.refused && (
            <button type="button" class="danger" onClick={(e) => save(e, undefined, true)}>
              Save the breaking change
            </button>
          )}
        </BreakingWarning>
      )}
      <form class="editor" onSubmit={(e) => save(e)} noValidate>
        {!id && (
          <Field
            label="Id"
            id="doc-id"
            hint={`${ID_RULE} ${mode === "yaml" ? "Empty: the document's own id." : ""}`}
            error={
              exists ? (
                <>
                  A {resource.noun} with the id “{exists}” already exists — <a href={`/${resource.plural}/${enc(exists)}`}>open it?</a> Nothing was overwritten.
                </>
              ) : (
                byField.id
              )
            }
          >
            <input id="doc-id" value={newId} onInput={(e) => setNewId(e.currentTarget.value)} aria-invalid={!!exists || !!byField.id || undefined} aria-describedby="doc-id-hint doc-id-error" />
          </Field>
        )}
        {FormView || mode === "yaml" ? (
          <div class="tabs" role="group" aria-label="Edit as">
            <button type="button" aria-pressed={mode === "form"} disabled={!FormView && mode === "yaml"} onClick={() => switchTo("form")}>
              Form
            </button>
            <button type="button" aria-pressed={mode === "yaml"} onClick={() => switchTo("yaml")}>
              YAML / JSON
            </button>
          </div>
        ) : null}
        <ErrorBox error={shownError} title={shownError && error?.status === 422 ? `Not saved: ${error.violations.length || "some"} value${error.violations.length === 1 ? "" : "s"} to fix` : undefined} labels={labels} />
        {mode === "form" && FormView ? (
          <FormView doc={doc} onChange={edit} errors={byField} violations={claimed} isNew={!id} />
        ) : (
          <>
            <div class="editor-tools">
              <ImportFile
                onText={(t) => {
                  editText(t);
                  setProblems(parseText(t).problems);
                }}
              />
              {!id &&
                props.yamlTemplates?.map((t) => (
                  <button type="button" key={t.label} onClick={() => editText(t.text(firstTeam))}>
                    Start from {t.label}
                  </button>
                ))}
              <span class="hint">YAML or JSON.</span>
            </div>
            <CodeEditor id="document" label="Document" value={text} onInput={editText} problems={problems} />
          </>
        )}
        {props.check?.(() => {
          if (mode !== "yaml") return { doc, id: targetId() };
          const parsed = parseText(text);
          return { doc: parsed.problems.length === 0 && isObject(parsed.value) ? parsed.value : undefined, id: targetId() };
        })}
        <div class="form-actions">
          <button type="button" onClick={() => navigate(id ? `/${resource.plural}/${enc(id)}` : `/${resource.plural}`)}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            {id ? "Save changes" : `Create ${resource.noun}`}
          </button>
        </div>
      </form>
    </>
  );
}

const isObject = (v: unknown): v is Doc => typeof v === "object" && v !== null && !Array.isArray(v);

