import { useState } from "preact/hooks";
import { useAction } from "./use-action.js";
import type { GroupMapping, GroupMappingEntry } from "../../../src/identity/mapping.js";
import { call, get, type Team } from "../api.js";
import { ErrorBox, Field, Loading, TeamOptions, useLoad } from "../ui.js";
import { formProblems } from "./form-problems.js";

/** One entry being edited; `key` keeps inputs stable while rows come and go. */
interface Row {
  key: number;
  scimGroup: string;
  type: GroupMappingEntry["type"];
  teamId: string;
  teamMemberRole: string;
}

const LABELS: Record<string, string> = {
  "scimGroupMappings[].scimGroup": "The group",
  "scimGroupMappings[].type": "What the group makes them",
  "scimGroupMappings[].teamId": "The team",
  "scimGroupMappings[].teamMemberRole": "The team role",
};

let nextKey = 1;
const rowOf = (e: Partial<GroupMappingEntry>): Row => ({
  key: nextKey++,
  scimGroup: e.scimGroup ?? "",
  type: e.type ?? "organizationOwner",
  teamId: e.teamId ?? "",
  teamMemberRole: e.teamMemberRole ?? "",
});

/** The rows as the server's shape (docs/identity.md, "Group mapping"): team fields only for team entries. */
function entryOf(r: Row): GroupMappingEntry {
  const scimGroup = r.scimGroup.trim();
  return r.type === "organizationOwner" ? { scimGroup, type: r.type } : { scimGroup, type: r.type, teamId: r.teamId, teamMemberRole: r.teamMemberRole };
}

/**
 * The group mapping as rows: a provider group makes a person an organization owner, or a member of
 * a team in a team role. Saved whole with `PUT /api/settings/scim-mapping`; the server's problems
 * are shown at the row and field they name.
 */
export function MappingForm({ roleNames }: { roleNames: readonly string[] }) {
  const loaded = useLoad(() => call<GroupMapping>("GET", "/api/settings/scim-mapping"), []);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const [rows, setRows] = useState<Row[] | undefined>();
  const [saved, setSaved] = useState(false);
  const { busy, error, submit } = useAction();
  if (loaded.error) return <ErrorBox error={loaded.error} />;
  if (!loaded.data) return <Loading />;
  const current = rows ?? loaded.data.scimGroupMappings.map(rowOf);
  const change = (key: number, patch: Partial<Row>) => {
    setSaved(false);
    setRows(current.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  };
  const add = (type: Row["type"]) => {
    setSaved(false);
    setRows([...current, rowOf({ type, teamId: teams.data?.[0]?.id, teamMemberRole: roleNames.find((n) => n.toLowerCase() === "member") ?? roleNames[0] })]);
  };
  const remove = (key: number) => {
    setSaved(false);
    setRows(current.filter((r) => r.key !== key));
  };
  const problems = formProblems(error, LABELS);
  const at = (i: number, field: string): string | undefined => problems.byField[`scimGroupMappings[${i}].${field}`];
  const shown = problems.shown;

  return (
    <form
      aria-label="Group mapping"
      onSubmit={submit(async () => {
        setSaved(false);
        const answer = await call<GroupMapping>("PUT", "/api/settings/scim-mapping", { scimGroupMappings: current.map(entryOf) });
        setRows(answer.scimGroupMappings.map(rowOf));
        setSaved(true);
      })}
    >
      <p class="hint">Group names as the provider sends them, compared exactly. A person in no listed group keeps the role they have.</p>
      {current.length === 0 && <p class="muted">No groups are mapped.</p>}
      {current.map((r, i) => {
        const id = `mapping-${r.key}`;
        const team = teams.data?.some((t) => t.id === r.teamId) || !r.teamId ? [] : [{ id: r.teamId, name: r.teamId }];
        const roles = roleNames.some((n) => n === r.teamMemberRole) || !r.teamMemberRole ? roleNames : [...roleNames, r.teamMemberRole];
        return (
          <fieldset class="ports" key={r.key}>
            <legend>Mapping {i + 1}</legend>
            <div class="row">
              <Field label="Group" id={`${id}-group`} error={at(i, "scimGroup")}>
                <input id={`${id}-group`} required maxLength={256} value={r.scimGroup} onInput={(e) => change(r.key, { scimGroup: e.currentTarget.value })} />
              </Field>
              <Field label="Makes them" id={`${id}-type`} error={at(i, "type")}>
                <select id={`${id}-type`} value={r.type} onChange={(e) => change(r.key, { type: e.currentTarget.value as Row["type"] })}>
                  <option value="organizationOwner">Organization owner</option>
                  <option value="teamMemberRole">Member of a team</option>
                </select>
              </Field>
              {r.type === "teamMemberRole" && (
                <>
                  <Field label="Team" id={`${id}-team`} error={at(i, "teamId")}>
                    <select id={`${id}-team`} required value={r.teamId} onChange={(e) => change(r.key, { teamId: e.currentTarget.value })}>
                      <option value="">Choose a team</option>
                      <TeamOptions teams={[...(teams.data ?? []), ...team]} />
                    </select>
                  </Field>
                  <Field label="Team role" id={`${id}-role`} error={at(i, "teamMemberRole")}>
                    <select id={`${id}-role`} required value={r.teamMemberRole} onChange={(e) => change(r.key, { teamMemberRole: e.currentTarget.value })}>
                      <option value="">Choose a role</option>
                      {roles.map((n) => (
                        <option key={n} value={n}>
                          {n}
                        </option>
                      ))}
                    </select>
                  </Field>
                </>
              )}
            </div>
            <button type="button" class="danger-link" onClick={() => remove(r.key)}>
              Remove mapping {i + 1}
            </button>
          </fieldset>
        );
      })}
      <div class="form-actions start">
        <button type="button" onClick={() => add("organizationOwner")}>
          Add owner group
        </button>
        <button type="button" onClick={() => add("teamMemberRole")}>
          Add team group
        </button>
      </div>
      <ErrorBox error={shown} labels={LABELS} />
      {saved && <p role="status">Saved.</p>}
      <div class="form-actions start">
        <button type="submit" class="primary" disabled={busy}>
          Save group mapping
        </button>
      </div>
    </form>
  );
}
