import type { ComponentChildren } from "preact";
import type { Team } from "../api.js";
import { TeamLink } from "./catalog-links.js";

/**
 * The one way a page shows a resource's details: a list of labelled facts. Pages build it from
 * `Facts` and `Fact` and write no `dl`, `dt` or `dd` of their own (test/layout.test.ts keeps this).
 */

const LOOKS = { facts: "facts", compact: "facts compact", terms: "terms", "verified terms": "terms verified" } as const;

/** The list of facts: `facts` under a page's heading, `compact` inside a card or section, `terms` for a contract's promises. */
export function Facts({ look = "facts", children }: { look?: keyof typeof LOOKS; children: ComponentChildren }) {
  return <dl class={LOOKS[look]}>{children}</dl>;
}

/** One fact; left out when there is nothing to say. */
export function Fact({ label, children }: { label: ComponentChildren; children?: ComponentChildren }) {
  if (children === undefined || children === null || children === "" || children === false) return null;
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export function IdFact({ id, label = "Id" }: { id: string; label?: string }) {
  return (
    <Fact label={label}>
      <code>{id}</code>
    </Fact>
  );
}

export function OwnerFact({ teams, owner }: { teams: Team[] | undefined; owner: unknown }) {
  return <Fact label="Owner">{typeof owner === "string" ? <TeamLink teams={teams} id={owner} /> : undefined}</Fact>;
}
