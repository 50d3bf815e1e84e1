import type { ComponentChildren } from "preact";
import { enc, type AffectedAccess, type ContractChange } from "../api.js";
import { Badge, Empty } from "../ui.js";

/** The changes between two contract documents, each marked breaking or not (docs/versions.md). */
export function ChangeList({ changes, caption }: { changes: ContractChange[]; caption: string }) {
  if (changes.length === 0) return <Empty>The two versions promise the same.</Empty>;
  return (
    <ul class="changes" aria-label={caption}>
      {changes.map((c, i) => (
        <li key={i} class={c.breaking ? "change breaking" : "change"}>
          <Badge tone={c.breaking ? "bad" : "neutral"}>{c.breaking ? "breaking" : "non-breaking"}</Badge> <code>{c.path}</code> — {c.message}
          {c.affectedAccesses.length > 0 && <span class="muted"> (affects {c.affectedAccesses.join(", ")})</span>}
        </li>
      ))}
    </ul>
  );
}

/** The approved accesses whose consumers a breaking change would fail. */
export function AffectedAccessList({ accesses }: { accesses: AffectedAccess[] }) {
  if (accesses.length === 0) return null;
  return (
    <>
      <p>Approved accesses that depend on this contract:</p>
      <ul class="affected-accesses" aria-label="Affected accesses">
        {accesses.map((a) => (
          <li key={a.id}>
            <a href={`/access/${enc(a.id)}`}>{a.id}</a>
            {a.consumerTeamId && <span> · team {a.consumerTeamId}</span>}
            {a.consumerDataProductId && <span> · data product {a.consumerDataProductId}</span>}
          </li>
        ))}
      </ul>
    </>
  );
}

/** Before a breaking save: what would break and for whom, with the choice to go on or stop. */
export function BreakingWarning(props: { changes: ContractChange[]; accesses: AffectedAccess[]; refused?: string; children: ComponentChildren }) {
  return (
    <section class="alert warn breaking-warning" role="alert" aria-labelledby="breaking-title">
      <strong id="breaking-title">This change is breaking</strong>
      {props.refused ? <p>{props.refused}</p> : <p>Consumers that rely on the current version may fail. Nothing is saved yet.</p>}
      <ChangeList changes={props.changes.filter((c) => c.breaking)} caption="Breaking changes" />
      <AffectedAccessList accesses={props.accesses} />
      <div class="form-actions">{props.children}</div>
    </section>
  );
}
