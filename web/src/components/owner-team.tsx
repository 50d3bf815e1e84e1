import { useEffect } from "preact/hooks";
import { get, type Team } from "../api.js";
import { canActFor, useSession } from "../session.js";
import { Field, TeamOptions, useLoad } from "../ui.js";
import type { Doc } from "./document-editor.js";

/** The person's teams, for owner selects: owners of the organization may choose any team. */
export function useOwnTeams(): Team[] {
  const { session } = useSession();
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  return (teams.data ?? []).filter((t) => canActFor(session, t.id));
}

/**
 * The owner team of a document of the Data Product or Contract Specification (`info.owner`): one of
 * the person's teams, the first of them for a new document, and an owner they do not act for kept
 * as it is.
 */
export function OwnerTeamField({ id, doc, onChange, error }: { id: string; doc: Doc; onChange: (doc: Doc) => void; error?: string }) {
  const teams = useOwnTeams();
  const info = (doc.info ?? {}) as Record<string, unknown>;
  const setOwner = (owner: string) => onChange({ ...doc, info: { ...info, owner } });
  useEffect(() => {
    // A new document belongs to one of the person's teams from the start.
    if (!info.owner && teams[0]) setOwner(teams[0].id);
  }, [teams.length]);
  return (
    <Field label="Owner team" id={id} error={error}>
      <select id={id} value={String(info.owner ?? "")} onChange={(e) => setOwner(e.currentTarget.value)}>
        {teams.length === 0 && <option value="">You act for no team</option>}
        {info.owner && !teams.some((t) => t.id === info.owner) ? <option value={String(info.owner)}>{String(info.owner)}</option> : null}
        <TeamOptions teams={teams} />
      </select>
    </Field>
  );
}
