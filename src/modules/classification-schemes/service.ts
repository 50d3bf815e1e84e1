import type { Emit } from "../../events/log.js";
import type { Principal } from "../../platform/auth.js";
import type { Executor } from "../../platform/database/index.js";
import type { FieldViolation } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import { DocumentService, searchText, type CatalogKind } from "../catalog/document-service.js";
import { resourceRepository } from "../catalog/resource-repository.js";
import type { EventExtras } from "../../events/kinds.js";
import type { ClassificationScheme } from "./shapes.js";
import { classificationRepository } from "./repository.js";
import { emitChangeEvent } from "../catalog/change-events.js";

/** The custom property that maps a scheme to the standard `classification` field of ODCS/ODPS. */
export const DEFAULT_PROPERTY = "classification";

export const classificationSchemeKind: CatalogKind<ClassificationScheme> = {
  kind: "classificationscheme",
  label: "Classification scheme",
  // The scheme is addressed by its externalId: the path's id fills it, and a different one is refused in `validate`.
  prepare: (scheme) => ({ ...scheme, externalId: scheme.externalId ?? scheme.id }),
  columns: (s) => ({ title: s.name, ownerTeamId: null, status: s.customProperty === DEFAULT_PROPERTY ? "default" : null, searchText: searchText(s.id, s.name, s.description) }),
  authorize: (p) => policy.governOrganization(p, "classification schemes"),
  async validate(ex, organizationId, scheme) {
    const violations: FieldViolation[] = [];
    if (scheme.externalId !== scheme.id) violations.push({ field: "externalId", message: `must equal the id in the path ('${scheme.id}')` });
    const seen = new Set<string>();
    (scheme.classifications ?? []).forEach((tier, i) => {
      if (seen.has(tier.externalId)) violations.push({ field: `classifications[${i}].externalId`, message: `duplicate tier '${tier.externalId}'` });
      seen.add(tier.externalId);
    });
    return violations;
  },
  emitChange: emitChangeEvent("ClassificationScheme"),
};

/**
 * Classification schemes, of which one at most is the organization's default (docs/policies.md):
 * writing a scheme with `customProperty: "classification"` makes it the default, and in the same
 * transaction the scheme that was the default loses its `customProperty` (it then maps to
 * `classification.<externalId>`), with its own ClassificationSchemeUpdatedEvent.
 */
export class ClassificationSchemeService extends DocumentService<ClassificationScheme> {
  protected override async store(trx: Executor, emit: Emit, p: Principal, id: string, before: ClassificationScheme | undefined, after: { doc: ClassificationScheme; json: string }, extras?: EventExtras): Promise<void> {
    await super.store(trx, emit, p, id, before, after, extras);
    if (after.doc.customProperty !== DEFAULT_PROPERTY) return;
    for (const otherId of await classificationRepository.otherDefaults(trx, p.organizationId, id)) {
      const other = await resourceRepository.get<ClassificationScheme>(trx, p.organizationId, "classificationscheme", otherId, { lock: this.database.dialect });
      if (!other) continue;
      const { customProperty: _default, ...demoted } = other.doc;
      await super.store(trx, emit, p, otherId, other.doc, { doc: demoted as ClassificationScheme, json: JSON.stringify(demoted) });
    }
  }
}
