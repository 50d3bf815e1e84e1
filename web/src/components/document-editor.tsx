import { useEffect, useState } from "preact/hooks";
import { ApiError, enc, send, type AffectedAccess, type ContractChange } from "../api.js";
import { useUnsavedGuard } from "../editor.js";
import { navigate } from "../router.js";
import { canActFor, useSession } from "../session.js";
import { ErrorBox, Loading, PageHeader } from "../ui.js";
import { atFields, idProblem } from "../words.js";
import { parseText, toYaml, type LineProblem } from "../yaml-text.js";
import { BreakingWarning } from "./contract-changes.js";
import { ConflictNotice, ModeTabs, NewIdField, NotYours, YamlPane, type Doc, type DocumentEditorProps, type Mode } from "./document-editor-parts.js";

export type { Doc, FormProps, Resource } from "./document-editor-parts.js";

/**
 * Creating and editing a catalog document (team, data product, data contract): a form where the
 * format has one, or the document as YAML/JSON with line numbers and its problems by line.
 * Writes are safe: a new document is sent with `If-None-Match: *` (never overwriting one with the
 * same id), an edit with `If-Match` (never overwriting someone else's newer save).
 */

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
  const [breaking, setBreaking] = useState<{ changes: ContractChange[]; accesses: AffectedAccess[]; refused?: string; body?: Doc; told?: string } | undefined>();
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
    return <NotYours resource={resource} id={id} title={props.titleOf(loaded.doc!)} owner={owner} />;
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
          setBreaking({ changes: report.changes, accesses: report.affectedAccesses, body });
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
          body,
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
        <ConflictNotice noun={resource.noun} theirs={conflict.theirs} mine={conflict.mine} onReload={() => load()} onOverwrite={(e) => save(e, conflict.etag)} />
      )}
      {breaking && (
        <BreakingWarning changes={breaking.changes} accesses={breaking.accesses} refused={breaking.refused}>
          <button type="button" onClick={() => setBreaking(undefined)}>
            Cancel
          </button>
          {id && props.tellConsumers && breaking.body && breaking.accesses.length > 0 && !breaking.told && (
            <button
              type="button"
              onClick={async () => {
                const told = await props.tellConsumers!(id, breaking.body!).catch((err) => (err instanceof ApiError ? err.detail : String(err)));
                setBreaking((b) => b && { ...b, told });
              }}
            >
              Tell consumers
            </button>
          )}
          {breaking.told && <span role="status">{breaking.told}</span>}
          {!breaking.refused && (
            <button type="button" class="danger" onClick={(e) => save(e, undefined, true)}>
              Save the breaking change
            </button>
          )}
        </BreakingWarning>
      )}
      <form class="editor" onSubmit={(e) => save(e)} noValidate>
        {!id && <NewIdField resource={resource} yaml={mode === "yaml"} value={newId} onInput={setNewId} exists={exists} error={byField.id} />}
        {FormView || mode === "yaml" ? <ModeTabs mode={mode} formless={!FormView} onSwitch={switchTo} /> : null}
        <ErrorBox error={shownError} title={shownError && error?.status === 422 ? `Not saved: ${error.violations.length || "some"} value${error.violations.length === 1 ? "" : "s"} to fix` : undefined} labels={labels} />
        {mode === "form" && FormView ? (
          <FormView doc={doc} onChange={edit} errors={byField} violations={claimed} isNew={!id} />
        ) : (
          <YamlPane
            text={text}
            problems={problems}
            onText={editText}
            onImport={(t) => {
              editText(t);
              setProblems(parseText(t).problems);
            }}
            templates={id ? undefined : props.yamlTemplates?.map((t) => ({ label: t.label, text: () => t.text(firstTeam) }))}
          />
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

