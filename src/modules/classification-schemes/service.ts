import type { FieldViolation } from "../../platform/errors.js";
import { policy } from "../../policies/index.js";
import { searchText, type DocumentDefinition } from "../shared/document-service.js";
import type { ClassificationScheme } from "./shapes.js";
import { classificationRepository } from "./repository.js";

/** The custom property that maps a scheme to the standard `classification` field of ODCS/ODPS. */
export const DEFAULT_PROPERTY = "classification";

export const classificationSchemeDefinition: DocumentDefinition<ClassificationScheme> = {
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
    if (scheme.customProperty === DEFAULT_PROPERTY) {
      const other = await classificationRepository.otherDefault(ex, organizationId, scheme.id);
      if (other !== undefined) {
        violations.push({ field: "customProperty", message: `the scheme '${other}' is the organization's default already; give it another customProperty first` });
      }
    }
    return violations;
  },
  emitChange(emit, id, before, after) {
    emit(before === undefined ? "ClassificationSchemeCreatedEvent" : after === undefined ? "ClassificationSchemeDeletedEvent" : "ClassificationSchemeUpdatedEvent", id);
  },
};
