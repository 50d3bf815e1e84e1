import { useState } from "preact/hooks";
import { useAction } from "./use-action.js";
import type { TeamRolesSettings } from "../../../src/identity/team-roles.js";
import { DEFAULT_TEAM_ROLES, TEAM_PERMISSIONS, type TeamPermission } from "../../../src/policies/team-roles.js";
import { call } from "../api.js";
import { ErrorBox, Field } from "../ui.js";
import { formProblems } from "./form-problems.js";

type Mode = TeamRolesSettings["mode"];

/** One role being edited; `key` keeps inputs stable while rows come and go. */
interface Row {
  key: number;
  name: string;
  description: string;
  permissions: ReadonlySet<string>;
}

const LABELS: Record<string, string> = {
  "team-roles": "The roles",
  "team-roles[].name": "The name",
  "team-roles[].description": "The description",
  "team-roles[].permissions": "The permissions",
  "team-roles[].permissions[]": "A permission",
};

let nextKey = 1;
const rowOf = (r: { name: string; description?: string | null; permissions: readonly string[] }): Row => ({
  key: nextKey++,
  name: r.name,
  description: r.description ?? "",
  permissions: new Set(r.permissions),
});

const rowsOf = (s: TeamRolesSettings): Row[] => (s["team-roles"] ?? []).map(rowOf);

/** The settings the form stands for; roles are ranked in the order they are listed. */
function settingsOf(mode: Mode, rows: Row[]): TeamRolesSettings {
  if (mode === "default") return { mode };
  return {
    mode,
    "team-roles": rows.map((r) => ({
      name: r.name.trim(),
      description: r.description.trim() === "" ? null : r.description.trim(),
      // Checkboxes in the order of the permission list; a name the server no longer knows is kept for it to judge.
      permissions: [...TEAM_PERMISSIONS.filter((p) => r.permissions.has(p)), ...[...r.permissions].filter((p) => !(TEAM_PERMISSIONS as readonly string[]).includes(p))],
    })),
  };
}

/**
 * The team roles of the organization (docs/identity.md, "Team roles"): the built-in roles, or its
 * own catalog with one row per role and a checkbox per permission. Saved whole with
 * `PUT /api/settings/team-roles`; the server's problems are shown at the role they name.
 */
export function TeamRolesForm({ initial, onSaved }: { initial: TeamRolesSettings; onSaved: (settings: TeamRolesSettings) => void }) {
  const [mode, setMode] = useState<Mode>(initial.mode);
  const [rows, setRows] = useState<Row[]>(() => rowsOf(initial));
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useAction();
  const edit = (next: Row[]) => {
    setSaved(false);
    setRows(next);
  };
  const change = (key: number, patch: Partial<Row>) => edit(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const toggle = (r: Row, permission: TeamPermission, on: boolean) => {
    const permissions = new Set(r.permissions);
    if (on) permissions.add(permission);
    else permissions.delete(permission);
    change(r.key, { permissions });
  };
  const chooseMode = (next: Mode) => {
    setSaved(false);
    setMode(next);
    // The catalog kept from before (the server shows it in built-in mode too), else the built-in roles: switching takes no permission away by itself.
    if (next === "custom-team-roles" && rows.length === 0) setRows(DEFAULT_TEAM_ROLES.map(rowOf));
  };
  const problems = formProblems(error, LABELS);
  const at = (field: string): string | undefined => problems.byField[field];
  const permissionProblem = (i: number) => Object.entries(problems.byField).find(([f]) => f.startsWith(`team-roles[${i}].permissions`))?.[1];
  const shown = problems.shown;

  return (
    <form
      aria-label="Team roles"
      onSubmit={submit(async () => {
        setSaved(false);
        const answer = await call<TeamRolesSettings>("PUT", "/api/settings/team-roles", settingsOf(mode, rows));
        setMode(answer.mode);
        if (answer.mode === "custom-team-roles") setRows(rowsOf(answer));
        setSaved(true);
        onSaved(answer);
      })}
    >
      <fieldset class="choice">
        <legend>Roles in force</legend>
        <label>
          <input type="radio" name="team-roles-mode" checked={mode === "default"} onChange={() => chooseMode("default")} /> Built-in roles: every member of a team may do
          everything for it
        </label>
        <label>
          <input type="radio" name="team-roles-mode" checked={mode === "custom-team-roles"} onChange={() => chooseMode("custom-team-roles")} /> Our own roles: a member may
          do only what their role allows
        </label>
      </fieldset>
      {mode === "custom-team-roles" && (
        <>
          <p class="hint">Roles are ranked in the order listed. A role still given to a team member cannot be removed.</p>
          {rows.map((r, i) => {
            const id = `team-role-${r.key}`;
            return (
              <fieldset class="ports" key={r.key}>
                <legend>Role {i + 1}</legend>
                <div class="row">
                  <Field label="Name" id={`${id}-name`} error={at(`team-roles[${i}].name`)}>
                    <input id={`${id}-name`} required minLength={3} maxLength={1000} value={r.name} onInput={(e) => change(r.key, { name: e.currentTarget.value })} />
                  </Field>
                  <Field label="Description" id={`${id}-description`} error={at(`team-roles[${i}].description`)}>
                    <input id={`${id}-description`} maxLength={10_000} value={r.description} onInput={(e) => change(r.key, { description: e.currentTarget.value })} />
                  </Field>
                </div>
                <fieldset class="choice">
                  <legend>Permissions</legend>
                  <div class="checks">
                    {TEAM_PERMISSIONS.map((p) => (
                      <label key={p} class="check">
                        <input type="checkbox" checked={r.permissions.has(p)} onChange={(e) => toggle(r, p, e.currentTarget.checked)} /> <code>{p}</code>
                      </label>
                    ))}
                  </div>
                  {permissionProblem(i) && <p class="field-error">{permissionProblem(i)}</p>}
                </fieldset>
                <button type="button" class="danger-link" onClick={() => edit(rows.filter((x) => x.key !== r.key))}>
                  Remove role {i + 1}
                </button>
              </fieldset>
            );
          })}
          <div class="form-actions start">
            <button type="button" onClick={() => edit([...rows, rowOf({ name: "", permissions: [] })])}>
              Add role
            </button>
          </div>
        </>
      )}
      <ErrorBox error={shown} labels={LABELS} />
      {saved && <p role="status">Saved.</p>}
      <div class="form-actions start">
        <button type="submit" class="primary" disabled={busy}>
          Save team roles
        </button>
      </div>
    </form>
  );
}
