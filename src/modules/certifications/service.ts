import { policy } from "../../policies/index.js";
import { searchText, type CatalogKind } from "../catalog/document-service.js";
import type { Certification } from "./shapes.js";
import { emitChangeEvent } from "../catalog/change-events.js";

export const certificationKind: CatalogKind<Certification> = {
  kind: "certification",
  label: "Certification",
  columns: (c) => ({ title: c.name, ownerTeamId: null, status: c.restricted ? "restricted" : null, searchText: searchText(c.id, c.name, c.description, c.tag) }),
  authorize: (p) => policy.governOrganization(p, "certifications"),
  emitChange: emitChangeEvent("Certification"),
};
