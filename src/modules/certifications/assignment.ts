import type { Principal } from "../../platform/auth.js";
import type { Executor } from "../../platform/database/index.js";
import { policy } from "../../policies/index.js";
import { certificationRepository } from "./repository.js";

/** The tags a document carries at its top level: how a data product holds its certifications. */
export function tagsOf(doc: Record<string, unknown> | undefined): string[] {
  const tags = doc?.tags;
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === "string") : [];
}

/**
 * A data product holds a certification by carrying its tag. Assigning or removing a restricted
 * one is for organization-scoped principals only (docs/policies.md): 403 otherwise.
 */
export async function checkCertificationChanges(ex: Executor, p: Principal, before: Record<string, unknown> | undefined, after: Record<string, unknown>): Promise<void> {
  if (p.scope === "organization") return;
  const was = new Set(tagsOf(before));
  const is = new Set(tagsOf(after));
  const changed = new Set([...was].filter((t) => !is.has(t)).concat([...is].filter((t) => !was.has(t))));
  if (changed.size === 0) return;
  for (const certification of await certificationRepository.all(ex, p.organizationId)) {
    if (certification.restricted === true && changed.has(certification.tag)) policy.assignRestrictedCertification(p, certification.name);
  }
}
