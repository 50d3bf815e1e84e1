import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type Violation } from "./api.js";
import { describeViolation } from "./words.js";

/** Loads data for a page; `reload` fetches again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/** The page's heading; takes focus after navigation so screen readers announce the new page. */
export function PageHeader(props: { title: string; kicker?: ComponentChildren; children?: ComponentChildren; actions?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Steward`;
    if (document.activeElement === document.body || document.activeElement?.closest("nav")) ref.current?.focus({ preventScroll: true });
  }, [props.title]);
  return (
    <header class="page-header">
      <div>
        {props.kicker && <p class="kicker">{props.kicker}</p>}
        <h1 tabIndex={-1} ref={ref}>
          {props.title}
        </h1>
        {props.children}
      </div>
      {props.actions && <div class="actions">{props.actions}</div>}
    </header>
  );
}

const HEADINGS: Record<number, string> = {
  0: "No connection",
  400: "The request was not understood",
  403: "Not allowed",
  404: "Not found",
  409: "Not possible in the current state",
  412: "Changed by someone else",
  413: "Too large",
  422: "Some values need fixing",
  429: "Too many attempts",
};

/** A problem from the server: its title as the heading (or the page's own), the detail, each violation in words. */
export function ErrorBox({ error, title, labels }: { error: unknown; title?: string; labels?: Record<string, string> }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // After a failed action the message takes focus, so keyboard and screen reader users meet it.
    if (error && ref.current && !ref.current.closest("dialog")) ref.current.focus({ preventScroll: false });
  }, [error instanceof ApiError ? `${error.status} ${error.detail} ${error.violations.length}` : error]);
  if (!error) return null;
  const e = error instanceof ApiError ? error : new ApiError(0, String((error as Error)?.message ?? error));
  const heading = title ?? HEADINGS[e.status] ?? (e.title || "The action failed");
  return (
    <div class="alert error" role="alert" tabIndex={-1} ref={ref}>
      <strong>{heading}</strong>
      <p>{e.detail}</p>
      {e.violations.length > 0 && <Violations violations={e.violations} labels={labels} />}
    </div>
  );
}

export function Violations({ violations, labels }: { violations: Violation[]; labels?: Record<string, string> }) {
  return (
    <ul class="violations">
      {violations.map((v, i) => (
        <li key={i}>
          {describeViolation(v, labels)}
          {v.line !== undefined && (
            <span class="where">
              {" "}
              (line {v.line}
              {v.column !== undefined && `, column ${v.column}`})
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p class="muted loading" role="status">
      {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });

/** A timestamp in the reader's time zone; plain dates (2026-11-21) as dates. */
export function When({ value, empty = "—" }: { value?: string | null; empty?: string }) {
  if (!value) return <span class="muted">{empty}</span>;
  const plain = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const d = new Date(plain ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(d.getTime())) return <span>{value}</span>;
  return (
    <time dateTime={value} title={d.toISOString()}>
      {plain ? dateFormat.format(d) : dateTimeFormat.format(d)}
    </time>
  );
}

const TONES: Record<string, string> = {
  requested: "warn",
  approved: "ok",
  active: "ok",
  rejected: "bad",
  canceled: "neutral",
  inactive: "neutral",
  provisioned: "ok",
  provisioning: "info",
  "provisioning-failed": "bad",
  deprovisioning: "info",
  deprovisioned: "neutral",
  "deprovisioning-failed": "bad",
  owner: "info",
  member: "neutral",
  organization: "info",
  team: "neutral",
  passed: "ok",
  failed: "bad",
  warning: "warn",
  error: "bad",
  revoked: "bad",
};

export function Badge({ children, tone }: { children?: string | null; tone?: string }) {
  if (!children) return null;
  return <span class={`badge ${tone ?? TONES[children.toLowerCase()] ?? "neutral"}`}>{children}</span>;
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
          } catch {
            // Clipboard access can be refused (http, permissions): select the text so Ctrl+C works.
            const input = document.activeElement?.parentElement?.querySelector("input");
            input?.select();
          }
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        }}
      >
        {copied ? "Copied" : label}
      </button>
      <span class="visually-hidden" aria-live="polite">
        {copied ? "Copied to the clipboard" : ""}
      </span>
    </>
  );
}

export function Field(props: { label: string; id: string; hint?: ComponentChildren; children: ComponentChildren; error?: ComponentChildren }) {
  return (
    <div class={`field${props.error ? " invalid" : ""}`}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={`${props.id}-error`}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** Debounces a value, for search boxes. */
export function useDebounced<T>(value: T, ms = 250): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** One option per team, for any select of teams. */
export function TeamOptions({ teams }: { teams: ReadonlyArray<{ id: string; name: string }> | undefined }) {
  return (
    <>
      {teams?.map((t) => (
        <option value={t.id} key={t.id}>
          {t.name}
        </option>
      ))}
    </>
  );
}

/** The search box and owner-team filter the catalog lists share; more filters go in `children`. */
export function CatalogFilters(props: {
  q: string;
  onQ: (q: string) => void;
  teamId: string;
  onTeamId: (teamId: string) => void;
  teams: ReadonlyArray<{ id: string; name: string }> | undefined;
  children?: ComponentChildren;
}) {
  return (
    <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
      <Field label="Search" id="q">
        <input id="q" type="search" placeholder="Title, id or description" value={props.q} onInput={(e) => props.onQ(e.currentTarget.value)} />
      </Field>
      <Field label="Owner team" id="team">
        {/* Remade once the teams arrive, so a team chosen in the address is selected then. */}
        <select id="team" key={props.teams ? "teams" : "loading"} value={props.teamId} onChange={(e) => props.onTeamId(e.currentTarget.value)}>
          <option value="">All teams</option>
          <TeamOptions teams={props.teams} />
        </select>
      </Field>
      {props.children}
    </form>
  );
}

/** A destructive action at the end of a table row; the hidden text names the row for screen readers. */
export function RowAction(props: { label: string; name: string; onClick: () => void }) {
  return (
    <td class="row-actions">
      <button type="button" class="danger-link" onClick={props.onClick}>
        {props.label}
        <span class="visually-hidden"> {props.name}</span>
      </button>
    </td>
  );
}

/**
 * A data table with its scrolling wrapper and column headers; rows go in `children`. A column
 * named "" is the row-actions column (named for screen readers only); `false` leaves it out.
 */
export function Table(props: { columns: Array<string | false>; caption?: string; class?: string; busy?: boolean; children: ComponentChildren }) {
  return (
    <div class="table-wrap" aria-busy={props.busy}>
      <table class={props.class}>
        {props.caption && <caption class="visually-hidden">{props.caption}</caption>}
        <thead>
          <tr>
            {props.columns.map((column, i) =>
              column === false ? null : (
                <th scope="col" key={i}>
                  {column === "" ? <span class="visually-hidden">Actions</span> : column}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

// Dialogs live in dialogs.tsx; pages written before the split still import them from here.
export { Confirm, Dialog, DialogFooter } from "./dialogs.js";
