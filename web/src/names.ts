import { useEffect, useState } from "preact/hooks";
import { getAll, type ApiKey, type Member } from "./api.js";
import { useSession } from "./session.js";

/**
 * Who did something, as a name (docs/product.md §6): an event's `principal` is `api-key:<id>`,
 * `user:<id>` or `system`. The server names them where it can (`principalName`); otherwise the
 * names come from the members and keys lists, which only owners may read.
 */
export type NameOf = (principal: string | undefined | null, given?: string | null) => string;

let cache: Promise<Map<string, string>> | undefined;
let cachedFor = "";

async function loadNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const [members, keys] = await Promise.all([getAll<Member>("/api/members").catch(() => []), getAll<ApiKey>("/api/api-keys").catch(() => [])]);
  for (const m of members) names.set(`user:${m.userId}`, m.email);
  for (const k of keys) names.set(`api-key:${k.id}`, `API key “${k.displayName}”`);
  return names;
}

export function usePrincipalNames(): NameOf {
  const { session } = useSession();
  const [names, setNames] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    const key = `${session.user.id}:${session.currentOrganizationId}`;
    if (!cache || cachedFor !== key) {
      cache = loadNames();
      cachedFor = key;
    }
    let live = true;
    cache.then((n) => live && setNames(n));
    return () => {
      live = false;
    };
  }, [session.currentOrganizationId]);
  return (principal, given) => {
    if (principal === `user:${session.user.id}`) return `you (${session.user.email})`;
    if (given) return principal?.startsWith("api-key:") ? `API key “${given}”` : given;
    if (!principal) return "unknown";
    if (principal === "system") return "Steward (on schedule)";
    const known = names.get(principal);
    if (known) return known;
    const [kind, id] = principal.split(":");
    return kind === "api-key" ? `an API key (${id.slice(0, 8)}…)` : kind === "user" ? `a person (${id.slice(0, 8)}…)` : principal;
  };
}
