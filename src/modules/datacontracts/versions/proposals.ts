import { createHash } from "node:crypto";
import type { ContractChange } from "../../../contract-changes/rules.js";
import { MAX_PROPOSAL_ITEMS, type ProposedChange } from "../../../events/kinds.js";
import { eventRepository } from "../../../events/repository.js";
import type { Executor } from "../../../platform/database/index.js";

/** How long the same proposed document is told once (docs/versions.md, "Telling consumers"). */
export const PROPOSAL_REPEAT_MS = 24 * 60 * 60 * 1000;

/** The value with every object's members in sorted order, so that member order makes no difference. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
  );
}

/** SHA-256 (hex) of a document with its members sorted: the identity of a proposal. */
export function proposalHash(doc: unknown): string {
  return createHash("sha256").update(JSON.stringify(sorted(doc))).digest("hex");
}

/** What the proposal event carries: the first breaking changes and affected accesses, with the counts of all. */
export function proposalOf(version: string | null, hash: string, changes: readonly ContractChange[], accessIds: readonly string[]): ProposedChange {
  const breaking = changes.filter((c) => c.breaking);
  return {
    version,
    hash,
    breakingChanges: breaking.slice(0, MAX_PROPOSAL_ITEMS).map((c) => ({ path: c.path, change: c.change, message: c.message })),
    breakingCount: breaking.length,
    affectedAccesses: accessIds.slice(0, MAX_PROPOSAL_ITEMS),
    affectedCount: accessIds.length,
  };
}

/** When the same proposal was told within the repeat window, that earlier event's time. */
export async function toldBefore(ex: Executor, organizationId: string, contractId: string, hash: string, now: Date): Promise<string | undefined> {
  const since = new Date(now.getTime() - PROPOSAL_REPEAT_MS).toISOString();
  // The hash is hexadecimal, so the fragment is matched literally as the event data writes it.
  const earlier = await eventRepository.latestWith(ex, organizationId, "DataContractChangeProposedEvent", contractId, since, `"hash":"${hash}"`);
  return earlier?.time;
}
