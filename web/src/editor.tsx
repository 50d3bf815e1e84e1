import { useEffect, useRef, useState } from "preact/hooks";
import { diffLines } from "diff";
import { setLeaveGuard } from "./router.js";
import { describeViolation } from "./words.js";
import type { LineProblem } from "./yaml-text.js";

/** Warns before a page with unsaved edits is left, inside the app and when the tab closes. */
export function useUnsavedGuard(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return;
    setLeaveGuard(() => confirm("Your changes are not saved. Leave this page and lose them?"));
    const beforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    addEventListener("beforeunload", beforeUnload);
    return () => {
      setLeaveGuard(null);
      removeEventListener("beforeunload", beforeUnload);
    };
  }, [dirty]);
}

/** Moves the caret to a line of a textarea and shows it. */
function goToLine(area: HTMLTextAreaElement, line: number): void {
  const lines = area.value.split("\n");
  const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
  area.focus();
  area.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
  const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
  area.scrollTop = Math.max(0, (line - 3) * lineHeight);
}

/** A YAML/JSON text editor with line numbers; lines with problems are marked in the gutter. */
export function CodeEditor(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  problems: LineProblem[];
  rows?: number;
  hint?: string;
}) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const count = props.value.split("\n").length;
  const flagged = new Set(props.problems.map((p) => p.at?.line).filter((l): l is number => l !== undefined));
  return (
    <div class="field code-field">
      <label for={props.id}>{props.label}</label>
      <div class="code-editor">
        <div class="gutter" ref={gutter} aria-hidden="true">
          {Array.from({ length: count }, (_, i) => (
            <span key={i} class={flagged.has(i + 1) ? "flagged" : undefined}>
              {i + 1}
            </span>
          ))}
        </div>
        <textarea
          id={props.id}
          ref={area}
          class="code"
          rows={props.rows ?? 22}
          wrap="off"
          spellcheck={false}
          value={props.value}
          aria-describedby={props.problems.length ? `${props.id}-problems` : props.hint ? `${props.id}-hint` : undefined}
          aria-invalid={props.problems.length > 0 || undefined}
          onInput={(e) => props.onInput(e.currentTarget.value)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
          }}
          onKeyDown={(e) => {
            // Tab indents (two spaces) instead of leaving the editor; Escape then Tab still leaves it.
            if (e.key === "Tab" && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
              const t = e.currentTarget;
              e.preventDefault();
              const { selectionStart: s, selectionEnd: end } = t;
              t.setRangeText("  ", s, end, "end");
              props.onInput(t.value);
            }
            if (e.key === "Escape") e.currentTarget.blur();
          }}
        />
      </div>
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      <ProblemPanel id={`${props.id}-problems`} problems={props.problems} onLine={(line) => area.current && goToLine(area.current, line)} />
    </div>
  );
}

/** Every problem of the document, by line; a line number moves the caret there. */
export function ProblemPanel({ id, problems, onLine }: { id: string; problems: LineProblem[]; onLine: (line: number) => void }) {
  if (problems.length === 0) return null;
  const sorted = [...problems].sort((a, b) => (a.at?.line ?? Infinity) - (b.at?.line ?? Infinity));
  return (
    <section class="problems" id={id} aria-label="Problems in the document">
      <h3>
        {problems.length} problem{problems.length === 1 ? "" : "s"} in the document
      </h3>
      <ul>
        {sorted.map((p, i) => (
          <li key={i}>
            {p.at ? (
              <button type="button" class="line-link" onClick={() => onLine(p.at!.line)}>
                Line {p.at.line}
                {p.at.column > 1 ? `, column ${p.at.column}` : ""}
              </button>
            ) : (
              <span class="line-link muted">No line</span>
            )}
            <span>{describeViolation(p)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Reads a YAML or JSON file the person picks into the editor. */
export function ImportFile({ onText }: { onText: (text: string, name: string) => void }) {
  const [error, setError] = useState("");
  return (
    <label class="button file-button">
      Import a file…
      <input
        type="file"
        accept=".yaml,.yml,.json,application/json,application/yaml,text/yaml"
        class="visually-hidden"
        onChange={async (e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = "";
          if (!file) return;
          if (file.size > 4 * 1024 * 1024) return setError(`${file.name} is larger than 4 MiB, the largest document Steward stores.`);
          setError("");
          onText(await file.text(), file.name);
        }}
      />
      {error && <span class="field-error">{error}</span>}
    </label>
  );
}

/** Two versions of a document, line by line: what the other person saved, and what is in the editor. */
export function TextDiff({ before, after, beforeLabel, afterLabel }: { before: string; after: string; beforeLabel: string; afterLabel: string }) {
  const parts = diffLines(before, after);
  return (
    <figure class="diff">
      <figcaption>
        <span class="removed">− {beforeLabel}</span> <span class="added">+ {afterLabel}</span>
      </figcaption>
      <pre>
        {parts.map((part, i) => {
          const lines = part.value.replace(/\n$/, "").split("\n");
          const cls = part.added ? "added" : part.removed ? "removed" : "same";
          const mark = part.added ? "+ " : part.removed ? "− " : "  ";
          // Long unchanged stretches are folded to their first and last two lines.
          const shown = cls === "same" && lines.length > 6 ? [...lines.slice(0, 2), `… ${lines.length - 4} unchanged lines …`, ...lines.slice(-2)] : lines;
          return shown.map((line, j) => (
            <div key={`${i}-${j}`} class={cls}>
              {mark}
              {line}
            </div>
          ));
        })}
      </pre>
    </figure>
  );
}
