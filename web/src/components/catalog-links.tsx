import { useEffect, useState } from "preact/hooks";
import { enc, type Team } from "../api.js";
import { replaceQuery, useLocation } from "../router.js";
import type { useSession } from "../session.js";

/** Links to teams and the address-kept filters that every catalog list and page shares. */
export const teamName = (teams: Team[] | undefined, id: string | null | undefined) => (id ? (teams?.find((t) => t.id === id)?.name ?? id) : "—");

export function TeamLink({ teams, id }: { teams?: Team[]; id?: string | null }) {
  if (!id) return <span class="muted">—</span>;
  return <a href={`/teams/${enc(id)}`}>{teamName(teams, id)}</a>;
}

/** Whether the signed-in person may create catalog documents at all (for some team). */
export const canCreate = (session: ReturnType<typeof useSession>["session"]) => session.scope === "organization" || session.teamIds.length > 0;

/** A list's search and filters, kept in the address so a filtered view can be shared and survives reload. */
export function useUrlFilters<K extends string>(keys: readonly K[]): [Record<K, string>, (k: K, v: string) => void] {
  const loc = useLocation();
  const read = () => Object.fromEntries(keys.map((k) => [k, loc.query.get(k) ?? ""])) as Record<K, string>;
  const [values, setValues] = useState(read);
  useEffect(() => {
    replaceQuery(values);
  }, [JSON.stringify(values)]);
  return [values, (k, v) => setValues((prev) => ({ ...prev, [k]: v }))];
}
