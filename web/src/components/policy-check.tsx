import { useState } from "preact/hooks";
import { ApiError, call, pagePath, type DraftEvaluation } from "../api.js";
import { Badge, ErrorBox } from "../ui.js";

type Draft = { doc?: Record<string, unknown>; id: string };

const OUTCOME = { deny: "would refuse", warn: "would warn", pass: "passes" } as const;

/**
 * Before saving: what each Accepted policy at the gate says about the draft as it stands
 * (POST /api/policies/evaluate, docs/policies.md). Nothing is written.
 */
export function PolicyCheck({ gate, draft }: { gate: "contract.publish" | "product.publish"; draft: () => Draft }) {
  const [result, setResult] = useState<DraftEvaluation | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const [busy, setBusy] = useState(false);
  const check = async () => {
    setError(undefined);
    setResult(undefined);
    const { doc, id } = draft();
    if (!doc) {
      setError(new ApiError(0, "The document cannot be read: fix the text first.", [], "Nothing to check"));
      return;
    }
    setBusy(true);
    try {
      setResult(await call<DraftEvaluation>("POST", "/api/policies/evaluate", { gate, document: doc, ...(id ? { id } : {}) }));
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
    } finally {
      setBusy(false);
    }
  };
  const refusing = result?.policies.filter((p) => p.outcome === "deny").length ?? 0;
  return (
    <section aria-labelledby="policy-check">
      <h2 id="policy-check">Policies</h2>
      <div class="form-actions start">
        <button type="button" onClick={check} disabled={busy}>
          Check against the policies
        </button>
      </div>
      <ErrorBox error={error} title={error?.title} />
      {result && (
        <>
          <p role="status">
            {result.policies.length === 0
              ? "No accepted policy has a rule for publishing."
              : `${refusing === 0 ? "No policy would refuse this draft" : `${refusing} ${refusing === 1 ? "policy" : "policies"} would refuse this draft`}${result.applies ? "." : " once its status is active (policies decide when it is published as active)."}`}
          </p>
          <ul class="plain-list" aria-label="What each policy says">
            {result.policies.map((p) => (
              <li key={p.policyId}>
                <a href={pagePath("policies", p.policyId)}>{p.name}</a> <Badge tone={p.outcome === "pass" ? undefined : "warn"}>{OUTCOME[p.outcome]}</Badge>
                {p.outcome !== "pass" && p.message && <>: {p.message}</>}
                <PolicyRead read={p.read} error={p.error} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** What a policy's rule read to decide, and the error it met, under its verdict. */
export function PolicyRead({ read, error }: { read: unknown; error?: string }) {
  return (
    <div class="sub">
      read <code>{JSON.stringify(read)}</code>
      {error && <> ({error})</>}
    </div>
  );
}
