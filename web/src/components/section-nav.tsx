import type { PageKind } from "../api.js";

/**
 * The menus under a main-menu entry that covers several pages: the catalog's read-only resources
 * (docs/product.md §8) and governance (docs/policies.md).
 */

type Sections = ReadonlyArray<{ kind: PageKind; label: string }>;

const CATALOG: Sections = [
  { kind: "assets", label: "Assets" },
  { kind: "sourcesystems", label: "Source systems" },
  { kind: "definitions", label: "Definitions" },
  { kind: "tags", label: "Tags" },
];

const GOVERNANCE: Sections = [
  { kind: "policies", label: "Policies" },
  { kind: "classification-schemes", label: "Classification schemes" },
  { kind: "certifications", label: "Certifications" },
];

/** The catalog's main-menu entry covers these pages. */
export const CATALOG_KINDS = CATALOG.map((s) => s.kind);

/** The governance menu entry covers these pages. */
export const GOVERNANCE_KINDS = GOVERNANCE.map((s) => s.kind);

function SectionNav({ label, sections, current }: { label: string; sections: Sections; current: PageKind }) {
  return (
    <nav class="subnav" aria-label={label}>
      {sections.map((s) => (
        <a key={s.kind} href={`/${s.kind}`} aria-current={s.kind === current ? "page" : undefined}>
          {s.label}
        </a>
      ))}
    </nav>
  );
}

export const CatalogNav = ({ current }: { current: PageKind }) => <SectionNav label="Catalog" sections={CATALOG} current={current} />;

export const GovernanceNav = ({ current }: { current: PageKind }) => <SectionNav label="Governance" sections={GOVERNANCE} current={current} />;
