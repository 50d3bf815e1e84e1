import type { Executor } from "../../platform/database/index.js";
import { apiKeyRepository } from "../api-keys/repository.js";
import { peopleRepository } from "./repository.js";

/** What people read for the `system` principal: the scheduler inside Steward. */
export const SYSTEM_NAME = "Steward";

/**
 * Names for event principals, for people to read: an API key's display name, a person's email
 * address, Steward for the system. A key of another organization is never named (its id stays
 * as stored); a key or person that no longer exists keeps its raw principal.
 */
export async function principalNames(ex: Executor, organizationId: string, principals: Iterable<string>): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const principal of new Set(principals)) {
    const [kind, id] = splitPrincipal(principal);
    if (kind === "system") names.set(principal, SYSTEM_NAME);
    else if (kind === "api-key") {
      const key = await apiKeyRepository.findById(ex, organizationId, id);
      if (key) names.set(principal, key.display_name);
    } else if (kind === "user") {
      const user = await peopleRepository.findUser(ex, id);
      if (user) names.set(principal, user.email);
    }
  }
  return names;
}

function splitPrincipal(principal: string): [string, string] {
  const colon = principal.indexOf(":");
  return colon < 0 ? [principal, ""] : [principal.slice(0, colon), principal.slice(colon + 1)];
}
