import { diffLines } from "diff";

/**
 * Two documents side by side, line by line (docs/versions.md): the whole document, not only its
 * models, so a changed service level or a removed role is seen where it is written.
 */

/** Past this many lines on either side the page links to the documents instead of comparing them in the browser. */
const MAX_LINES = 5000;

interface Row {
  left?: string;
  right?: string;
  kind: "same" | "changed" | "removed" | "added" | "fold";
}

function rows(before: string, after: string): Row[] {
  const out: Row[] = [];
  const parts = diffLines(before, after);
  const lines = (value: string) => value.replace(/\n$/, "").split("\n");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.removed && parts[i + 1]?.added) {
      // A changed stretch: old and new lines face each other.
      const [old, now] = [lines(part.value), lines(parts[i + 1].value)];
      for (let j = 0; j < Math.max(old.length, now.length); j++) out.push({ left: old[j], right: now[j], kind: old[j] === undefined ? "added" : now[j] === undefined ? "removed" : "changed" });
      i++;
    } else if (part.removed) for (const line of lines(part.value)) out.push({ left: line, kind: "removed" });
    else if (part.added) for (const line of lines(part.value)) out.push({ right: line, kind: "added" });
    else {
      const same = lines(part.value);
      // Long unchanged stretches fold to their first and last two lines.
      if (same.length > 7) {
        for (const line of same.slice(0, 2)) out.push({ left: line, right: line, kind: "same" });
        out.push({ left: `… ${same.length - 4} unchanged lines …`, right: "", kind: "fold" });
        for (const line of same.slice(-2)) out.push({ left: line, right: line, kind: "same" });
      } else for (const line of same) out.push({ left: line, right: line, kind: "same" });
    }
  }
  return out;
}

export function SideBySideDiff({ before, after, beforeLabel, afterLabel }: { before: string; after: string; beforeLabel: string; afterLabel: string }) {
  const count = (text: string) => text.split("\n").length;
  if (count(before) > MAX_LINES || count(after) > MAX_LINES) return <p class="muted">These documents are too long to compare line by line here; download both versions to compare them.</p>;
  if (before === after) return <p class="muted">The two documents are the same.</p>;
  return (
    <div class="side-by-side" role="table" aria-label={`${beforeLabel} and ${afterLabel}, side by side`}>
      <div role="row" class="sbs-head">
        <span role="columnheader">{beforeLabel}</span>
        <span role="columnheader">{afterLabel}</span>
      </div>
      {rows(before, after).map((r, i) => (
        <div role="row" key={i} class={`sbs-row ${r.kind}`}>
          <code role="cell" class={r.left === undefined ? "empty" : r.kind === "changed" || r.kind === "removed" ? "old" : ""}>
            {r.left ?? ""}
          </code>
          <code role="cell" class={r.right === undefined ? "empty" : r.kind === "changed" || r.kind === "added" ? "new" : ""}>
            {r.right ?? ""}
          </code>
        </div>
      ))}
    </div>
  );
}
